// A second package with its own Card.module.css: the same file name and class names as the dashboard's.
import styles from "./Card.module.css";

function Cards() {
  return (
    <section className={styles.card} data-testid="cards-card">
      <h2 className={styles.title}>Cards</h2>
    </section>
  );
}

export function installAcmeCardsHostComponents(host: { registerWidget(type: string, c: unknown): void }): void {
  host.registerWidget("acme_cards", Cards);
}
