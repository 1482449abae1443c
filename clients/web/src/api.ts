// The gateway, reached through its browser port (the Connect protocol by default,
// gRPC-Web with ?protocol=grpc-web), and the registry that opens every Any it sends.
import { createRegistry, type DescMessage, type Message, type Registry } from "@bufbuild/protobuf";
import { anyUnpack, type Any } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { language, t } from "./i18n";
import { file_tavola_borgia_v1_borgia } from "./gen/tavola/borgia/v1/borgia_pb";
import { GatewayService, file_tavola_gateway_v1_gateway } from "./gen/tavola/gateway/v1/gateway_pb";
import { ChatService } from "./gen/tavola/gateway/v1/chat_pb";
import { PlayerService } from "./gen/tavola/gateway/v1/players_pb";
import { SessionService } from "./gen/tavola/gateway/v1/sessions_pb";
import { TurnService } from "./gen/tavola/gateway/v1/turns_pb";
import { file_tavola_mortadella_v1_mortadella } from "./gen/tavola/mortadella/v1/mortadella_pb";
import { file_tavola_pecunia_v1_pecunia } from "./gen/tavola/pecunia/v1/pecunia_pb";
import { file_tavola_rules_v1_rules } from "./gen/tavola/rules/v1/rules_pb";

/** Every message type this build knows, for Any fields; a game's types come from proto/. */
export const registry: Registry = createRegistry(
  file_tavola_gateway_v1_gateway,
  file_tavola_rules_v1_rules,
  file_tavola_borgia_v1_borgia,
  file_tavola_mortadella_v1_mortadella,
  file_tavola_pecunia_v1_pecunia,
);

const params = new URLSearchParams(location.search);

/** The gateway's browser address: ?gateway=..., else the page's own origin. */
export const gatewayUrl: string = params.get("gateway") ?? location.origin;

/** Every call names the page's language (gateway/locale.py), in which the gateway tells the
 *  games' events, outcomes and the platform's words. */
const inLanguage: Interceptor = (next) => (request) => {
  request.header.set("tavola-locale", language());
  return next(request);
};

export const transport =
  params.get("protocol") === "grpc-web"
    ? createGrpcWebTransport({ baseUrl: gatewayUrl, interceptors: [inLanguage] })
    : createConnectTransport({ baseUrl: gatewayUrl, useBinaryFormat: true, interceptors: [inLanguage] });

export const gateway: Client<typeof GatewayService> = createClient(GatewayService, transport);
export const players: Client<typeof PlayerService> = createClient(PlayerService, transport);
export const turns: Client<typeof TurnService> = createClient(TurnService, transport);
export const chat: Client<typeof ChatService> = createClient(ChatService, transport);
/** A seat's session: Follow pushes its events with its new view (no GetView a move). */
export const sessions: Client<typeof SessionService> = createClient(SessionService, transport);

export function bearer(token: string): { headers: Record<string, string> } {
  return { headers: { authorization: `Bearer ${token}` } };
}

/** The message in an Any, when this build knows its type. */
export function unpack(any: Any | undefined): Message | undefined {
  if (!any) return undefined;
  return anyUnpack(any, registry);
}

/** The descriptor of an Any's type, when known. */
export function schemaOf(any: Any | undefined): DescMessage | undefined {
  if (!any) return undefined;
  const name = any.typeUrl.slice(any.typeUrl.lastIndexOf("/") + 1);
  return registry.getMessage(name);
}

/** A failed call in words for a person: the gateway's message, which names what is wrong. */
export function failure(error: unknown): string {
  if (error instanceof ConnectError) {
    if (error.code === Code.Unavailable && !error.rawMessage) return t("gateway.down");
    return error.rawMessage || error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/** The gateway's status code of a failed call ("" for other failures). */
export function codeOf(error: unknown): Code | undefined {
  return error instanceof ConnectError ? error.code : undefined;
}

export { Code };

export function requestId(): string {
  return crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`;
}
