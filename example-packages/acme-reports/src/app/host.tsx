// The UI module of @acme/reports: the host imports this bundle and calls the install function
// with the host API (neuralis-build's docs/design.md, "The host API v1"; types in src/types/neuralis-client.d.ts).
import type { CardProps, HostComponents, WidgetProps } from "@neuralis/client";
import "./reports.css";
import { ReportCard, type ReportRow } from "./ReportCard";

export { ReportCard } from "./ReportCard";

// The latest run of each report; the real data comes from the package's routes.
const LATEST: Record<string, ReportRow[]> = {
  weekly: [
    { label: "passed", count: 1200 },
    { label: "failed", count: 34 },
  ],
  nightly: [
    { label: "passed", count: 310 },
    { label: "failed", count: 2 },
    { label: "skipped", count: 12 },
  ],
};

/** The card acme-reports.summary: this week's runs. */
function SummaryCard({ surface }: CardProps) {
  return <ReportCard title={surface.title ?? "Weekly runs"} rows={LATEST.weekly} />;
}

/** The widget acme_reports: one report, the one a notification opened it on (initialState). */
function ReportsWidget({ initialState }: WidgetProps<{ reportId?: string }>) {
  const reportId = initialState?.reportId ?? "nightly";
  return <ReportCard title={`Report ${reportId}`} rows={LATEST[reportId] ?? []} />;
}

export function installAcmeReportsHostComponents(host: HostComponents): void {
  host.registerCard("acme-reports.summary", SummaryCard);
  host.registerWidget("acme_reports", ReportsWidget);
}
