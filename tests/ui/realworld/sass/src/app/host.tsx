// Sass: a global stylesheet with a partial (@use), and a CSS module written in Sass.
import "./theme.scss";
import styles from "./Badge.module.scss";

function Panel() {
  return (
    <section className="panel" data-testid="panel">
      <h2 className="panel__title" data-testid="title">
        Panel
      </h2>
      <span className={styles.badge} data-testid="badge">
        <b className={styles.label}>new</b>
      </span>
    </section>
  );
}

export function installAcmeSassHostComponents(host: { registerWidget(type: string, c: unknown): void }): void {
  host.registerWidget("acme_panel", Panel);
}
