// Types for the modules the host hands this UI module at run time (never bundled).

declare module "@neuralis/client" {
  export interface NeuralisTheme {
    mode: "light" | "dark";
    accent: string;
  }
  export function useNeuralisTheme(): NeuralisTheme;
}

declare module "@acme/charts/app/charts" {
  import type { ReactElement } from "react";
  export interface Bar {
    label: string;
    value: number;
  }
  export function BarChart(props: { bars: Bar[]; height?: number; color?: string }): ReactElement;
}
