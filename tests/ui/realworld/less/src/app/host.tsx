// Less: variables, a mixin with an argument, nesting, and an @import.
import "./notice.less";

function Notice() {
  return (
    <aside className="notice" data-testid="notice">
      <h2 className="notice-title" data-testid="title">
        Notice
      </h2>
    </aside>
  );
}

export function installAcmeLessHostComponents(host: { registerWidget(type: string, c: unknown): void }): void {
  host.registerWidget("acme_notice", Notice);
}
