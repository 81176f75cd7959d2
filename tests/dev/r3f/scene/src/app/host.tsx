// A react-three-fiber scene: r3f bundles its own reconciler and picks its build by NODE_ENV, so it
// renders only when that build and the page's React are built for the same mode.
import { Canvas, useFrame } from "@react-three/fiber";
import { useRef } from "react";
import type { Mesh } from "three";

declare global {
  interface Window {
    __scene?: { frames: number; meshes: number; size: [number, number] };
  }
}

function Box() {
  const mesh = useRef<Mesh>(null);
  useFrame((state) => {
    const seen = window.__scene ?? { frames: 0, meshes: 0, size: [0, 0] };
    let meshes = 0;
    state.scene.traverse((o) => {
      meshes += (o as Mesh).isMesh ? 1 : 0;
    });
    window.__scene = { frames: seen.frames + 1, meshes, size: [state.size.width, state.size.height] };
  });
  return (
    <mesh ref={mesh}>
      <planeGeometry args={[100, 100]} />
      <meshBasicMaterial color="rgb(255, 0, 0)" />
    </mesh>
  );
}

function Scene() {
  return (
    <div data-testid="scene" style={{ width: 240, height: 160 }}>
      <Canvas flat gl={{ preserveDrawingBuffer: true }}>
        <Box />
      </Canvas>
    </div>
  );
}

export function installAcmeSceneHostComponents(host: { registerWidget(type: string, c: unknown): void }): void {
  host.registerWidget("acme_scene", Scene);
}
