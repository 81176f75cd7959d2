import { useState } from "react";
import { BarChart } from "@acme/charts/app/charts";
import { useNeuralisTheme } from "@neuralis/client";
import { formatCount } from "./format";

export interface ReportRow {
  label: string;
  count: number;
}

export interface ReportCardProps {
  title: string;
  rows: ReportRow[];
}

export function ReportCard({ title, rows }: ReportCardProps) {
  const theme = useNeuralisTheme();
  const [selected, setSelected] = useState(0);
  const total = rows.reduce((sum, row) => sum + row.count, 0);
  return (
    <section className={`acme-report acme-report--${theme.mode}`}>
      <h2 className="acme-report__title">{title}</h2>
      <p className="acme-report__total">{formatCount(total)} results</p>
      <BarChart bars={rows.map((r) => ({ label: r.label, value: r.count }))} color={theme.accent} />
      <ul className="acme-report__rows">
        {rows.map((row, i) => (
          <li key={row.label} aria-selected={i === selected} onClick={() => setSelected(i)}>
            {row.label}: {formatCount(row.count)}
          </li>
        ))}
      </ul>
    </section>
  );
}
