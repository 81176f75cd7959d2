// A dashboard as an author writes one: charting, dialogs, forms, data fetching, state (redux, zustand with
// its devtools middleware, jotai), styled-components, fonts, a library stylesheet, images and a CSS module,
// all from npm.
import "@fontsource/inter";
import "react-day-picker/style.css";
import "./brand.css";
import { zodResolver } from "@hookform/resolvers/zod";
import * as Dialog from "@radix-ui/react-dialog";
import { configureStore, createSlice } from "@reduxjs/toolkit";
import { QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { BarElement, CategoryScale, Chart as ChartJS, LinearScale } from "chart.js";
import { Bar } from "react-chartjs-2";
import { DayPicker } from "react-day-picker";
import { atom, useAtomValue } from "jotai";
import { useForm } from "react-hook-form";
import { Provider, useSelector } from "react-redux";
import { Line, LineChart, XAxis, YAxis } from "recharts";
import styled from "styled-components";
import useSWR from "swr";
import { z } from "zod";
import { create } from "zustand";
import { devtools } from "zustand/middleware";
import styles from "@/app/Card.module.css";
import dot from "./dot.png";
import icon from "./icon.svg";
import photo from "./photo.png";

ChartJS.register(CategoryScale, LinearScale, BarElement);

const counter = createSlice({ name: "counter", initialState: { value: 7 }, reducers: {} });
const store = configureStore({ reducer: { counter: counter.reducer } });
const queries = new QueryClient();
// zustand's devtools reads import.meta.env bare, as a guard: undefined in a browser, never a throw
const useBears = create<{ bears: number }>()(devtools(() => ({ bears: 4 })));
const labelAtom = atom("atoms");
// styled-components guards its process.env reads in the expression itself (typeof process)
const Pill = styled.span`
  border: 3px solid rgb(200, 0, 0);
`;
const schema = z.object({ name: z.string().min(2, "too short") });
const points = [
  { day: "mon", runs: 3 },
  { day: "tue", runs: 8 },
  { day: "wed", runs: 5 },
];

function Count() {
  const value = useSelector((s: ReturnType<typeof store.getState>) => s.counter.value);
  return <span data-testid="redux">{value}</span>;
}

function State() {
  const bears = useBears((s) => s.bears);
  const label = useAtomValue(labelAtom);
  return (
    <>
      <span data-testid="zustand">{bears}</span>
      <span data-testid="jotai">{label}</span>
      <Pill data-testid="styled">styled</Pill>
    </>
  );
}

function Fetched() {
  const { data } = useQuery({ queryKey: ["runs"], queryFn: async () => "12 runs" });
  const swr = useSWR("status", async () => "green");
  return (
    <>
      <span data-testid="query">{data ?? "…"}</span>
      <span data-testid="swr">{swr.data ?? "…"}</span>
    </>
  );
}

function Form() {
  const { register, handleSubmit, formState } = useForm<{ name: string }>({
    resolver: zodResolver(schema),
    defaultValues: { name: "x" },
  });
  return (
    <form data-testid="form" onSubmit={handleSubmit(() => undefined)}>
      <input {...register("name")} />
      <button type="submit">save</button>
      <span data-testid="form-error">{formState.errors.name?.message ?? ""}</span>
    </form>
  );
}

export function Dashboard() {
  return (
    <Provider store={store}>
      <QueryClientProvider client={queries}>
        <section className={styles.card} data-testid="card">
          <h2 className={styles.title}>Runs</h2>
          <img data-testid="icon" src={icon} alt="" />
          <img data-testid="photo" src={photo} alt="" />
          <img data-testid="dot" src={dot} alt="" />
          <i className="brand" data-testid="brand" />
          <i className="photo" data-testid="bg-photo" />
          <Count />
          <State />
          <Fetched />
          <Form />
          <LineChart width={240} height={120} data={points} data-testid="recharts">
            <XAxis dataKey="day" />
            <YAxis />
            <Line dataKey="runs" isAnimationActive={false} />
          </LineChart>
          <div style={{ width: 240, height: 120 }}>
            <Bar
              data-testid="chartjs"
              options={{ animation: false, responsive: false }}
              width={240}
              height={120}
              data={{ labels: ["a", "b"], datasets: [{ label: "runs", data: [3, 5] }] }}
            />
          </div>
          <DayPicker mode="single" month={new Date(2026, 0, 1)} />
          <Dialog.Root defaultOpen>
            <Dialog.Portal>
              <Dialog.Content aria-describedby={undefined} data-testid="dialog">
                <Dialog.Title>Details</Dialog.Title>
              </Dialog.Content>
            </Dialog.Portal>
          </Dialog.Root>
        </section>
      </QueryClientProvider>
    </Provider>
  );
}

export function installAcmeDashboardHostComponents(host: {
  registerWidget(type: string, component: unknown): void;
}): void {
  host.registerWidget("acme_dashboard", Dashboard);
}
