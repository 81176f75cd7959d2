// The module the host loads. The host maps "@acme/charts/app/charts" to this same bundle, so
// everything exported here is what other Acme modules can import from that id.
import type { HostComponents } from "@neuralis/client";

export { BarChart } from "./BarChart";
export type { Bar, BarChartProps } from "./BarChart";

/** The host calls this once. Charts draws no surface of its own: other modules render BarChart. */
export function installAcmeChartsHostComponents(_host: HostComponents): void {}
