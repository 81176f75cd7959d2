// Long lists, a grid and two carousels.
import "swiper/css";

import { useVirtualizer } from "@tanstack/react-virtual";
import { AllCommunityModule, ModuleRegistry } from "ag-grid-community";
import { AgGridReact } from "ag-grid-react";
import useEmblaCarousel from "embla-carousel-react";
import { useEffect, useRef, useState } from "react";
import { List, type RowComponentProps } from "react-window";
import { Swiper, SwiperSlide } from "swiper/react";

ModuleRegistry.registerModules([AllCommunityModule]);

const ROWS = 10_000;

function Row({ index, style, ariaAttributes }: RowComponentProps) {
  return (
    <div style={style} {...ariaAttributes}>
      row {index}
    </div>
  );
}

function ReactWindow() {
  return (
    <div data-testid="react-window">
      <List rowComponent={Row} rowCount={ROWS} rowHeight={24} rowProps={{}} style={{ height: 120 }} />
    </div>
  );
}

function TanstackVirtual() {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: ROWS, getScrollElement: () => scroller.current, estimateSize: () => 24 });
  return (
    <div data-testid="tanstack-virtual" ref={scroller} style={{ height: 120, overflow: "auto" }}>
      <div className="inner" style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
        {virtualizer.getVirtualItems().map((item) => (
          <div
            key={item.key}
            className="item"
            style={{ position: "absolute", top: 0, height: item.size, transform: `translateY(${item.start}px)` }}
          >
            item {item.index}
          </div>
        ))}
      </div>
    </div>
  );
}

const CARS = [
  { make: "Tesla", model: "Model Y", price: 64950 },
  { make: "Ford", model: "F-Series", price: 33850 },
  { make: "Toyota", model: "Corolla", price: 29600 },
];

function AgGrid() {
  return (
    <div data-testid="ag-grid" style={{ height: 200 }}>
      <AgGridReact rowData={CARS} columnDefs={[{ field: "make" }, { field: "model" }, { field: "price" }]} />
    </div>
  );
}

function SwiperWidget() {
  return (
    <div data-testid="swiper" style={{ width: 240 }}>
      <Swiper slidesPerView={1}>
        <SwiperSlide>one</SwiperSlide>
        <SwiperSlide>two</SwiperSlide>
        <SwiperSlide>three</SwiperSlide>
      </Swiper>
    </div>
  );
}

function Embla() {
  const [viewport, api] = useEmblaCarousel({ loop: true });
  const [slides, setSlides] = useState(0);
  useEffect(() => {
    if (api) setSlides(api.slideNodes().length);
  }, [api]);
  return (
    <div data-testid="embla">
      <div ref={viewport} style={{ overflow: "hidden", width: 240 }}>
        <div style={{ display: "flex" }}>
          {["one", "two", "three"].map((s) => (
            <div key={s} style={{ flex: "0 0 100%" }}>
              {s}
            </div>
          ))}
        </div>
      </div>
      <p className="count">{slides} slides</p>
    </div>
  );
}

export const lists = {
  "react-window": ReactWindow,
  "tanstack-virtual": TanstackVirtual,
  "ag-grid": AgGrid,
  swiper: SwiperWidget,
  embla: Embla,
};
