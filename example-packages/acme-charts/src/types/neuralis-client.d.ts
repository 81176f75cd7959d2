// The host API v1 and the platform client library, as neuralis-build ships them (neuralis-build's
// documentation, "Design", "The host API v1"). One definition: the templates, the examples, the dev page's stub and the browser tests
// all follow it. Regenerate this file with the toolchain's version (neuralis update); do not edit it.
// Import the types with `import type`: they vanish from the bundle, so only a value import (such as
// useNeuralisTheme) makes the module read @neuralis/client at run time.

declare module "@neuralis/client" {
  import type { ComponentType } from "react";

  /** A declared surface object, exactly as package.json's neuralis.app.surfaces[] holds it. */
  export interface SurfaceBase {
    readonly id: string;
    readonly requires?: { readonly features?: readonly string[] };
  }

  /** How a widget or card draws: a React component of the UI module, or an iframe page. */
  export type SurfaceRenderer =
    | { readonly renderer: "react" }
    | { readonly renderer: "iframe"; readonly url: string; readonly assetMode?: "self-contained" | "bundle" };

  /** A widget surface: a titled panel a person opens (from the dock, or a notification's nav). */
  export interface WidgetSurface extends SurfaceBase {
    readonly kind: "widget";
    readonly type: string;
    readonly title: string;
    readonly component: SurfaceRenderer;
  }

  /** A card surface. */
  export interface CardSurface extends SurfaceBase {
    readonly kind: "card";
    readonly title?: string;
    readonly render: SurfaceRenderer;
  }

  /** What the host passes a widget component. `initialState` is the opener's state (an event's nav). */
  export interface WidgetProps<State = unknown> {
    surface: WidgetSurface;
    initialState?: State;
  }

  /** What the host passes a card component. */
  export interface CardProps {
    surface: CardSurface;
  }

  /** What install<Name>HostComponents receives: register the component of each react surface. */
  export interface HostComponents {
    /** The component of the react widget whose `type` is `type`. */
    registerWidget<State = unknown>(type: string, component: ComponentType<WidgetProps<State>>): void;
    /** The component of the react card whose `id` is `id`. */
    registerCard(id: string, component: ComponentType<CardProps>): void;
  }

  /** The signature of a module's install<Name>HostComponents export. */
  export type InstallHostComponents = (host: HostComponents) => void;

  /** The workspace theme. */
  export interface NeuralisTheme {
    readonly mode: "light" | "dark";
    /** A CSS colour. */
    readonly accent: string;
  }

  /** The current workspace theme (a React hook). */
  export function useNeuralisTheme(): NeuralisTheme;
}
