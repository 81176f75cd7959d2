// One widget per library: each draws a small real use of it, in a <div data-testid="<surface id>">.
import type { ComponentType } from "react";

import { charts } from "./widgets/charts";
import { editors } from "./widgets/editors";
import { forms } from "./widgets/forms";
import { kits } from "./widgets/kits";
import { lists } from "./widgets/lists";
import { overlays } from "./widgets/overlays";
import { state } from "./widgets/state";

const widgets: Record<string, ComponentType> = { ...kits, ...forms, ...lists, ...charts, ...editors, ...state, ...overlays };

export function installAcmeGalleryHostComponents(host: { registerWidget(type: string, c: ComponentType): void }): void {
  for (const [id, component] of Object.entries(widgets)) {
    host.registerWidget(`gallery_${id.replaceAll("-", "_")}`, component);
  }
}
