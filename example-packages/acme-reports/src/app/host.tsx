// The UI module of @acme/reports: the host imports this bundle and calls the install function.
import type { ComponentType } from "react";
import "./reports.css";
import { ReportCard } from "./ReportCard";

export { ReportCard } from "./ReportCard";

export interface HostComponents {
  register(type: string, component: ComponentType<any>): void;
}

export function installAcmeReportsHostComponents(host: HostComponents): void {
  host.register("acme-reports.report", ReportCard);
}
