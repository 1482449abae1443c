// Any game, from its descriptors: the view as a tree, events in generic words, actions
// by their labels. A game this client has no renderer for plays through it.
import type { Message } from "@bufbuild/protobuf";
import { registry } from "../api";
import { h } from "../dom";
import { tree } from "../describe";
import { t } from "../i18n";
import type { Ctx, GameRenderer } from "./api";

export const generic: GameRenderer = {
  board(view: Message, ctx: Ctx): HTMLElement {
    const schema = registry.getMessage(view.$typeName);
    if (!schema) return h("p", {}, t("generic.view", view.$typeName));
    return h("section", { class: "board generic", "aria-label": t("generic.table") }, tree(schema, view, ctx.seats));
  },
};
