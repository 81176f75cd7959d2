// Types of the module @acme/charts publishes to other first-party UI modules (never bundled here).
// The host API and @neuralis/client come from neuralis-client.d.ts, which neuralis-build ships.

declare module "@acme/charts/app/charts" {
  import type { ReactElement } from "react";
  export interface Bar {
    label: string;
    value: number;
  }
  export function BarChart(props: { bars: Bar[]; height?: number; color?: string }): ReactElement;
}
