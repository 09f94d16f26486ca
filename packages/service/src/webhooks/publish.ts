/**
 * Publishing, the one seam between the domains and the delivery engine. A producer says what
 * happened (the event type, its ordering key, the destinations it chose itself — the seed's own
 * URLs after its gate — and how to write the body of a payload variant) inside its own
 * transaction, and the outbox routes it:
 *
 * - to the producer's destinations, and to every endpoint subscribed to the event type (a disabled
 *   one's delivery is held, a `cli` one's waits for its stream);
 * - one delivery per URL: an endpoint whose URL is also one of the producer's destinations takes
 *   that delivery (its custom headers and payload variant apply), so a receiver never gets one
 *   event twice;
 * - one message per distinct body: each destination has a payload variant (its pinned version,
 *   and for endpoints that opt in, the merchant's metadata); variants whose bodies come out the
 *   same share one message.
 *
 * `webhooks/` knows no domain: bodies come from the producer's `body` function.
 */
import type { PayloadVersion } from "@svc/webhooks/sign";
import type { Queryable } from "../db/client.js";
import {
  type DeliveryStart,
  enqueueMany,
  FIRST_PAYLOAD_VERSION,
  type NewMessage,
  type OwnedEnqueue,
} from "./outbox.js";
import type { WebhookConfig } from "./settings.repo.js";

/** An endpoint as routing reads it (with the merchant's routing, in the producer's statement), disabled ones too. */
export interface EndpointRoute {
  id: string;
  url: string;
  /** null: every event type. */
  event_types: string[] | null;
  include_metadata: boolean;
  payload_version: PayloadVersion;
  /** A disabled endpoint's deliveries are written failed, never sent: a replay sends them later. */
  enabled: boolean;
  /** `cli`: the temporary endpoint of `svc listen`, whose deliveries its CLI takes from a stream. */
  kind: "endpoint" | "cli";
}

/** What shapes a body: the payload version, and whether the merchant's metadata is added. */
export interface Variant {
  version: PayloadVersion;
  metadata: boolean;
}

export interface Destination {
  url: string;
  /** null: one of the producer's own (seed) destinations. */
  endpointId: string | null;
  variant: Variant;
  /** How the delivery starts (see Enqueue.statuses): by default `pending`, sent by the worker. */
  start?: DeliveryStart;
}

/** The seed's destinations get the first payload version, without metadata, for good. */
export const SEED_VARIANT: Variant = { version: FIRST_PAYLOAD_VERSION, metadata: false };

export function isSubscribed(endpoint: Pick<EndpointRoute, "event_types">, eventType: string): boolean {
  return endpoint.event_types === null || endpoint.event_types.includes(eventType);
}

/**
 * Where an event goes: the producer's own URLs (each once, in order), then each endpoint
 * subscribed to `eventType`; an enabled endpoint with the URL of one of the producer's takes its
 * place (a disabled one leaves it as it is). A disabled endpoint's delivery is held (written
 * failed, not sent); a `cli` endpoint's waits for its stream.
 */
export function route(
  seedUrls: readonly string[],
  endpoints: readonly EndpointRoute[],
  eventType: string,
): Destination[] {
  const byUrl = new Map<string, Destination>();
  for (const url of seedUrls)
    if (url && !byUrl.has(url)) byUrl.set(url, { url, endpointId: null, variant: SEED_VARIANT });
  for (const e of endpoints)
    if (isSubscribed(e, eventType) && (e.enabled || !byUrl.has(e.url)))
      byUrl.set(e.url, endpointDestination(e));
  return [...byUrl.values()];
}

export function endpointDestination(e: EndpointRoute): Destination {
  return {
    url: e.url,
    endpointId: e.id,
    variant: { version: e.payload_version, metadata: e.include_metadata },
    ...(!e.enabled ? { start: "failed" as const } : e.kind === "cli" ? { start: "stream" as const } : {}),
  };
}

export interface Publication {
  message: Omit<NewMessage, "body" | "payloadVersion">;
  destinations: readonly Destination[];
  /** The body for one variant (each distinct variant of the destinations is asked once). */
  body(variant: Variant): string | Promise<string>;
  config: Pick<WebhookConfig, "timeout_seconds" | "retry_schedule_seconds">;
}

/**
 * Writes each publication's messages and deliveries, all in one statement, in the order given;
 * nothing for a publication without destinations. The result at each position is the id of the
 * publication's first message (its first destination's), or undefined.
 */
export async function publishMany(
  q: Queryable,
  items: readonly Publication[],
): Promise<(string | undefined)[]> {
  const { enqueues, firstIds } = await publications(items);
  return firstIds(await enqueueMany(q, enqueues));
}

/**
 * What {@link publishMany} writes, for a caller that writes it in its own statement
 * (`enqueueFragment`): each publication's messages, owned by its position from 1, and the
 * function that turns the messages' ids into each publication's first one.
 */
export async function publications(items: readonly Publication[]): Promise<{
  enqueues: OwnedEnqueue[];
  firstIds: (ids: readonly (string | undefined)[]) => (string | undefined)[];
}> {
  const groups = await Promise.all(items.map(groupByBody));
  const enqueues = groups.flatMap((group, i) =>
    group.map((g) => ({
      message: { ...g.publication.message, payloadVersion: g.version, body: g.body },
      urls: g.destinations.map((d) => d.url),
      endpointIds: g.destinations.map((d) => d.endpointId),
      statuses: g.destinations.map((d) => d.start ?? "pending"),
      config: g.publication.config,
      owner: i + 1,
    })),
  );
  const firstIds = (ids: readonly (string | undefined)[]) => {
    let at = 0;
    return groups.map((g) => {
      const first = g.length > 0 ? ids[at] : undefined;
      at += g.length;
      return first;
    });
  };
  return { enqueues, firstIds };
}

export function publish(q: Queryable, item: Publication): Promise<string | undefined> {
  return publishMany(q, [item]).then((ids) => ids[0]);
}

interface BodyGroup {
  publication: Publication;
  version: PayloadVersion;
  body: string;
  destinations: Destination[];
}

/** The publication's destinations grouped by the body their variant gives, in destination order. */
async function groupByBody(publication: Publication): Promise<BodyGroup[]> {
  const bodies = new Map<string, Promise<string>>();
  const bodyOf = (v: Variant) => {
    const key = `${v.version}|${v.metadata}`;
    let body = bodies.get(key);
    if (!body) bodies.set(key, (body = Promise.resolve(publication.body(v))));
    return body;
  };
  const groups = new Map<string, BodyGroup>();
  for (const d of publication.destinations) {
    const body = await bodyOf(d.variant);
    // A version is part of what a message is (its header), even where two versions' bodies agree.
    const key = `${d.variant.version}\n${body}`;
    const group = groups.get(key);
    if (group) group.destinations.push(d);
    else groups.set(key, { publication, version: d.variant.version, body, destinations: [d] });
  }
  return [...groups.values()];
}
