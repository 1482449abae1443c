// Any game message in words and in a readable tree, from its descriptor alone: the
// generic renderer, and every game's fallback for what it does not draw itself.
import type { DescEnum, DescField, DescMessage, Message } from "@bufbuild/protobuf";
import { reflect, type ReflectMessage, isReflectList, isReflectMessage, isReflectMap } from "@bufbuild/protobuf/reflect";
import { FeatureSet_FieldPresence } from "@bufbuild/protobuf/wkt";
import { h, phrase, words } from "./dom";
import type { Seats } from "./names";

/** Field names that hold a seat number in every tavola game's messages. */
const SEAT_FIELD =
  /^(seat|player|victim|holder|new_holder|lombard_holder|guesser|other|lombard_to|active|active_seat|responder_seat|bidder_seat|caller_seat|starter_seat|start_player|viewer|viewer_seat|round_starter_seat|target_seat|winners|deciding_seats|waiting_seats|eliminated_seats)$/;

export function enumWord(desc: DescEnum, value: number): string {
  const member = desc.values.find((v) => v.number === value);
  return member ? words(member.localName) : String(value);
}

function isSeatField(field: DescField, seatFields: RegExp): boolean {
  const scalar = field.fieldKind === "scalar" || (field.fieldKind === "list" && field.listKind === "scalar");
  return scalar && seatFields.test(field.name);
}

function scalarText(value: unknown, field: DescField, seats: Seats | undefined, seatFields: RegExp): string {
  if (seats && isSeatField(field, seatFields) && typeof value === "number") return seats.name(value);
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (value instanceof Uint8Array) return `${value.length} bytes`;
  return String(value);
}

function valueText(ref: ReflectMessage, field: DescField, seats: Seats | undefined, seatFields: RegExp): string {
  const value = ref.get(field);
  if (field.fieldKind === "enum") return enumWord(field.enum, value as number);
  if (field.fieldKind === "scalar") return scalarText(value, field, seats, seatFields);
  if (field.fieldKind === "message" && isReflectMessage(value)) return inline(value, seats, seatFields);
  if (field.fieldKind === "list" && isReflectList(value)) {
    const items: string[] = [];
    for (const item of value) {
      if (field.listKind === "enum") items.push(enumWord(field.enum, item as number));
      else if (isReflectMessage(item)) items.push(inline(item, seats, seatFields));
      else items.push(scalarText(item, field, seats, seatFields));
    }
    return items.join(", ") || "none";
  }
  if (field.fieldKind === "map" && isReflectMap(value)) {
    return Array.from(value, ([key, item]) => `${String(key)}: ${String(item)}`).join(", ");
  }
  return "";
}

/** A message on one line: "Bid: 3, Bribe". */
function inline(ref: ReflectMessage, seats: Seats | undefined, seatFields: RegExp): string {
  const parts: string[] = [];
  for (const field of ref.sortedFields) {
    // Seat 0 is a value like any other (proto3 leaves a zero unset).
    const seatZero = !field.oneof && field.fieldKind === "scalar" && field.presence === FeatureSet_FieldPresence.IMPLICIT && isSeatField(field, seatFields);
    if (!ref.isSet(field) && !seatZero) continue;
    const text = valueText(ref, field, seats, seatFields);
    // A field that names the message's seat reads as the name alone: "Bid made: Ada, …".
    const bare = ref.fields.length === 1 || field.oneof || field.name === "seat" || field.name === "player";
    parts.push(bare ? text : `${phrase(field.localName).toLowerCase()} ${text}`);
  }
  return parts.join(", ");
}

/** An event in words: its oneof case as the verb, its fields after it. */
export function eventWords(schema: DescMessage, message: Message, seats?: Seats, seatFields = SEAT_FIELD): string {
  const ref = reflect(schema, message);
  const oneof = schema.oneofs[0];
  const chosen = oneof ? ref.oneofCase(oneof) : undefined;
  if (chosen && chosen.fieldKind === "message") {
    const body = ref.get(chosen) as ReflectMessage;
    const details = inline(body, seats, seatFields);
    return `${phrase(chosen.localName)}${details ? `: ${details}` : ""}`;
  }
  return `${phrase(schema.name)}: ${inline(ref, seats, seatFields)}`;
}

/** A message as a tree of labelled values, for any game's view. */
export function tree(schema: DescMessage, message: Message, seats?: Seats, seatFields = SEAT_FIELD): HTMLElement {
  return treeOf(reflect(schema, message), seats, seatFields);
}

function treeOf(ref: ReflectMessage, seats: Seats | undefined, seatFields: RegExp): HTMLElement {
  const rows: HTMLElement[] = [];
  for (const field of ref.sortedFields) {
    if (!ref.isSet(field)) continue;
    const label = h("dt", {}, phrase(field.localName));
    const value = ref.get(field);
    if (field.fieldKind === "message" && isReflectMessage(value)) {
      rows.push(label, h("dd", {}, treeOf(value, seats, seatFields)));
    } else if (field.fieldKind === "list" && field.listKind === "message" && isReflectList(value)) {
      const items = Array.from(value, (item) => h("li", {}, treeOf(item as ReflectMessage, seats, seatFields)));
      rows.push(label, h("dd", {}, h("ul", { class: "plain" }, items)));
    } else {
      rows.push(label, h("dd", {}, valueText(ref, field, seats, seatFields)));
    }
  }
  return h("dl", { class: "tree" }, rows);
}
