// Tailwind v4 through @tailwindcss/postcss: utilities from the default theme and one from the package's @theme.
import "./styles.css";

function Tiles() {
  return (
    <section data-testid="tiles" className="flex gap-4 rounded-lg bg-sky-500 p-4">
      <h2 data-testid="brand" className="text-brand font-bold">
        Tiles
      </h2>
    </section>
  );
}

export function installAcmeTailwind4HostComponents(host: { registerWidget(type: string, c: unknown): void }): void {
  host.registerWidget("acme_tiles", Tiles);
}
