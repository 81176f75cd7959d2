// Emotion's css prop through tsconfig's jsxImportSource (no per-file pragma): the build keeps that runtime.
import { css } from "@emotion/react";

function Badge() {
  return (
    <span data-testid="badge" css={css`color: rgb(200, 0, 0);`}>
      badge
    </span>
  );
}

export function installAcmeEmotionHostComponents(host: { registerWidget(type: string, c: unknown): void }): void {
  host.registerWidget("acme_badge", Badge);
}
