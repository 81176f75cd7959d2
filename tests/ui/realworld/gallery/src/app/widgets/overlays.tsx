// Overlays: a positioned tooltip, a toast, a command menu, a drawer.
import { autoUpdate, offset, useFloating } from "@floating-ui/react";
import { Command } from "cmdk";
import { useEffect } from "react";
import { Toaster, toast } from "sonner";
import { Drawer } from "vaul";

function FloatingTooltip() {
  const { refs, floatingStyles } = useFloating({
    open: true,
    placement: "top",
    middleware: [offset(6)],
    whileElementsMounted: autoUpdate,
  });
  return (
    <div data-testid="floating-ui" style={{ paddingTop: 40 }}>
      <button ref={refs.setReference}>anchor</button>
      <div ref={refs.setFloating} className="tooltip" style={floatingStyles}>
        tip
      </div>
    </div>
  );
}

// After the Toaster in the tree: its effect runs once the Toaster listens.
function Announce() {
  useEffect(() => {
    toast("Saved", { duration: Number.POSITIVE_INFINITY });
  }, []);
  return null;
}

function Sonner() {
  return (
    <div data-testid="sonner">
      <Toaster />
      <Announce />
    </div>
  );
}

function Cmdk() {
  return (
    <div data-testid="cmdk">
      <Command label="Commands">
        <Command.Input placeholder="Type a command" />
        <Command.List>
          <Command.Empty>Nothing</Command.Empty>
          <Command.Item>Open file</Command.Item>
          <Command.Item>Close file</Command.Item>
        </Command.List>
      </Command>
    </div>
  );
}

function Vaul() {
  return (
    <div data-testid="vaul">
      <Drawer.Root>
        <Drawer.Trigger>Open drawer</Drawer.Trigger>
        <Drawer.Portal>
          <Drawer.Overlay />
          <Drawer.Content>
            <Drawer.Title>Drawer</Drawer.Title>
            <Drawer.Description>From the bottom</Drawer.Description>
          </Drawer.Content>
        </Drawer.Portal>
      </Drawer.Root>
    </div>
  );
}

export const overlays = { "floating-ui": FloatingTooltip, sonner: Sonner, cmdk: Cmdk, vaul: Vaul };
