// Charts and drawings: each library draws SVG (react-spring animates a div).
import { Bar } from "@nivo/bar";
import { animated, useSpring } from "@react-spring/web";
import { LinePath } from "@visx/shape";
import { line, scaleLinear, select } from "d3";
import { QRCodeSVG } from "qrcode.react";
import { useEffect, useRef } from "react";
import { VictoryBar, VictoryChart } from "victory";

const SALES = [
  { quarter: "Q1", sales: 13 },
  { quarter: "Q2", sales: 16 },
  { quarter: "Q3", sales: 14 },
  { quarter: "Q4", sales: 19 },
];

function Victory() {
  return (
    <div data-testid="victory" style={{ width: 320 }}>
      <VictoryChart domainPadding={20} width={320} height={200}>
        <VictoryBar data={SALES} x="quarter" y="sales" />
      </VictoryChart>
    </div>
  );
}

function Nivo() {
  return (
    <div data-testid="nivo">
      <Bar data={SALES} keys={["sales"]} indexBy="quarter" width={320} height={200} margin={{ top: 10, right: 10, bottom: 30, left: 30 }} />
    </div>
  );
}

function D3() {
  const svg = useRef<SVGSVGElement>(null);
  useEffect(() => {
    const x = scaleLinear().domain([0, SALES.length - 1]).range([10, 230]);
    const y = scaleLinear().domain([10, 20]).range([110, 10]);
    const path = line<{ sales: number }>()
      .x((_, i) => x(i))
      .y((d) => y(d.sales));
    select(svg.current).selectAll("path").data([SALES]).join("path").attr("d", path).attr("fill", "none").attr("stroke", "steelblue");
  }, []);
  return (
    <div data-testid="d3">
      <svg ref={svg} width={240} height={120} />
    </div>
  );
}

function Visx() {
  return (
    <div data-testid="visx">
      <svg width={240} height={120}>
        <LinePath data={SALES} x={(_, i) => 10 + i * 70} y={(d) => 130 - d.sales * 6} stroke="tomato" />
      </svg>
    </div>
  );
}

function Qr() {
  return (
    <div data-testid="qrcode">
      <QRCodeSVG value="https://example.org/neuralis" size={96} />
    </div>
  );
}

function Spring() {
  const style = useSpring({ from: { opacity: 0 }, to: { opacity: 1 } });
  return (
    <div data-testid="react-spring">
      <animated.div className="fade" style={style}>
        faded in
      </animated.div>
    </div>
  );
}

export const charts = { victory: Victory, nivo: Nivo, d3: D3, visx: Visx, qrcode: Qr, "react-spring": Spring };
