import { useMemo } from "react";

export interface Bar {
  label: string;
  value: number;
}

export interface BarChartProps {
  bars: Bar[];
  height?: number;
  color?: string;
}

const BAR_WIDTH = 24;
const GAP = 8;

export function BarChart({ bars, height = 80, color = "#3b6fd4" }: BarChartProps) {
  const max = useMemo(() => Math.max(1, ...bars.map((b) => b.value)), [bars]);
  const width = bars.length * (BAR_WIDTH + GAP);
  return (
    <svg className="acme-bar-chart" role="img" width={width} height={height} viewBox={`0 0 ${width} ${height}`}>
      {bars.map((bar, i) => {
        const h = Math.round((bar.value / max) * height);
        return (
          <rect
            key={bar.label}
            data-label={bar.label}
            x={i * (BAR_WIDTH + GAP)}
            y={height - h}
            width={BAR_WIDTH}
            height={h}
            fill={color}
          />
        );
      })}
    </svg>
  );
}
