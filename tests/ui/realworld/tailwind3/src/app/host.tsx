// Tailwind v3 through its PostCSS plugin (tailwind.config.cjs, @tailwind, @apply), then autoprefixer.
import "./styles.css";

function Cards() {
  return (
    <section data-testid="card" className="card select-none text-emerald-600">
      <h2 data-testid="brand" className="text-brand">
        Cards
      </h2>
    </section>
  );
}

export function installAcmeTailwind3HostComponents(host: { registerWidget(type: string, c: unknown): void }): void {
  host.registerWidget("acme_cards3", Cards);
}
