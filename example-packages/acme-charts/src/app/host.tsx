// The module the host loads. The host maps "@acme/charts/app/charts" to this same bundle, so
// everything exported here is what other Acme modules can import from that id.
import type { ComponentType } from "react";
import { BarChart } from "./BarChart";

export { BarChart } from "./BarChart";
export type { Bar, BarChartProps } from "./BarChart";

export interface HostComponents {
  register(type: string, component: ComponentType<any>): void;
}

export function installAcmeChartsHostComponents(host: HostComponents): void {
  host.register("acme-charts.bar", BarChart);
}
