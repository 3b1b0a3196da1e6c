/**
 * Sends due deliveries: on each instance a round every `pollMs` (and at once after this instance
 * enqueued), claiming each delivery with a lease (delivery-store.ts) so that one instance sends it. A
 * delivery is `POST <url>` with its stored JSON body and the headers X-CMS-Event, X-CMS-Delivery and
 * X-CMS-Signature `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, through the outbound guard
 * (an internal address is refused at each send unless CMS_OUTBOUND_ALLOW_PRIVATE=true). A 2xx within
 * `timeoutMs` is success; anything else is retried after the next of `retryDelaysMs`, then `failed`.
 */
import { createHmac } from 'node:crypto';
import { guardedStatus, type Logger } from '../../kernel/sdk.js';
import type { ClaimedDelivery, DeliveryStore, Outcome } from './delivery-store.js';
import type { WebhookOptions } from './options.js';
import type { DeliveryView } from './public.js';
import type { WebhookStore } from './webhook-store.js';

/** The X-CMS-Signature value of a body sent at `t` (unix seconds). */
export function signature(secret: string, t: number, body: string): string {
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

/**
 * Deliveries per claim: `batch`, but no more than the sends that end inside half the lease when each takes
 * its whole timeout (`concurrency` at a time), so a slow receiver never lets a claim's lease run out.
 */
export function batchSize(options: Pick<WebhookOptions, 'batch' | 'concurrency' | 'leaseMs' | 'timeoutMs'>): number {
  const waves = Math.max(1, Math.floor(options.leaseMs / (2 * options.timeoutMs)));
  return Math.max(1, Math.min(options.batch, options.concurrency * waves));
}

/** What signing a delivery needs of its webhook. */
type Signer = { url: string; secret: string };

export interface DispatcherDeps {
  deliveries: DeliveryStore;
  webhooks: WebhookStore;
  options: WebhookOptions;
  allowPrivate: boolean;
  logger: Logger;
  /** This instance's name on the leases it takes. */
  owner: string;
}

export class Dispatcher {
  private stopped = false;
  private round: Promise<void> | null = null;
  private again = false;

  constructor(private readonly deps: DispatcherDeps) {}

  /** One round now (or one more right after the running one): never two at once, never throws. */
  kick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.round) {
      this.again = true;
      return this.round;
    }
    this.round = (async () => {
      do {
        this.again = false;
        await this.sendDue().catch((err: unknown) => this.deps.logger.warn({ err }, 'webhooks: a delivery round failed'));
      } while (this.again && !this.stopped);
    })().finally(() => (this.round = null));
    return this.round;
  }

  /**
   * Claims and sends due deliveries until none is due: a claim takes up to `batch` of them, sends them `concurrency`
   * at a time, and their outcomes are recorded together with the next claim (finishAndClaim: one transaction, so on
   * SQLite's one writer one turn per batch however many deliveries it holds). Outcomes still held when the round
   * stops (or when that transaction fails) are recorded on their own.
   */
  private async sendDue(): Promise<void> {
    const { deliveries, options, owner } = this.deps;
    let outcomes: Array<{ id: string; outcome: Outcome }> = [];
    try {
      for (let rounds = 0; rounds < 1000 && !this.stopped; rounds++) {
        const claimed = await deliveries.finishAndClaim(owner, outcomes, batchSize(options), options.leaseMs);
        outcomes = [];
        // None due, or every candidate was taken by another instance.
        if (!claimed.length) return;
        outcomes = await this.sendClaimed(claimed);
      }
    } finally {
      if (outcomes.length) await deliveries.finishMany(owner, outcomes);
    }
  }

  /** Sends a claim's deliveries `concurrency` at a time; answers their outcomes (a deleted webhook's deliveries are dropped). */
  private async sendClaimed(claimed: ClaimedDelivery[]): Promise<Array<{ id: string; outcome: Outcome }>> {
    const { options } = this.deps;
    const hooks = new Map<string, Promise<Signer | null>>();
    const signer = (webhookId: string) => {
      if (!hooks.has(webhookId)) hooks.set(webhookId, this.deps.webhooks.withSecret(webhookId));
      return hooks.get(webhookId)!;
    };
    const outcomes: Array<{ id: string; outcome: Outcome }> = [];
    let next = 0;
    const sender = async () => {
      while (next < claimed.length) {
        const { id, outcome } = await this.attempt(claimed[next++]!, signer);
        if (outcome) outcomes.push({ id, outcome });
      }
    };
    await Promise.all(Array.from({ length: Math.min(options.concurrency, claimed.length) }, sender));
    return outcomes;
  }

  /** Claims one delivery and sends it; false when another instance holds it or it is not due. */
  async sendOne(id: string): Promise<boolean> {
    const { deliveries, options, owner } = this.deps;
    const claimed = await deliveries.claim(id, owner, options.leaseMs);
    if (!claimed) return false;
    await this.send(claimed, (webhookId) => this.deps.webhooks.withSecret(webhookId));
    return true;
  }

  /** Sends a claimed delivery and records the outcome as the lease holder (a deleted webhook's delivery is dropped). */
  private async send(claimed: ClaimedDelivery, signer: (webhookId: string) => Promise<Signer | null>): Promise<void> {
    const { outcome } = await this.attempt(claimed, signer);
    if (outcome) await this.deps.deliveries.finish(claimed.id, this.deps.owner, outcome);
  }

  /** One attempt of a claimed delivery: its outcome, or null when its webhook is gone (the delivery is dropped). */
  private async attempt(
    claimed: ClaimedDelivery,
    signer: (webhookId: string) => Promise<Signer | null>,
  ): Promise<{ id: string; outcome: Outcome | null }> {
    const webhook = await signer(claimed.webhookId);
    if (!webhook) {
      await this.deps.deliveries.drop(claimed.id);
      return { id: claimed.id, outcome: null };
    }
    const { status, durationMs } = await this.post(webhook.url, webhook.secret, claimed);
    return { id: claimed.id, outcome: this.outcome(claimed.attempts + 1, status, durationMs) };
  }

  private outcome(attempt: number, responseStatus: number | null, durationMs: number | null): Outcome {
    const ok = responseStatus !== null && responseStatus >= 200 && responseStatus < 300;
    const delay = this.deps.options.retryDelaysMs[attempt - 1];
    const status: DeliveryView['status'] = ok ? 'succeeded' : delay === undefined ? 'failed' : 'retrying';
    return { status, responseStatus, durationMs, nextAttemptAt: status === 'retrying' ? this.deps.deliveries.now() + delay! : null };
  }

  /** One attempt: the answer's status, or null when there was none (refused address, network error, timeout). */
  private async post(url: string, secret: string, delivery: ClaimedDelivery): Promise<{ status: number | null; durationMs: number }> {
    const started = performance.now();
    const t = Math.floor(this.deps.deliveries.now() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'CMS-Webhooks/1',
      'x-cms-event': delivery.event,
      'x-cms-delivery': delivery.id,
      'x-cms-signature': signature(secret, t, delivery.body),
    };
    try {
      const { status, done } = await guardedStatus(
        url,
        { method: 'POST', headers, body: delivery.body, signal: AbortSignal.timeout(this.deps.options.timeoutMs) },
        this.deps.allowPrivate,
      );
      // The receiver's body is not kept; reading it ends the request on a kept-alive socket.
      await done;
      return { status, durationMs: Math.round(performance.now() - started) };
    } catch (err) {
      const reason = err instanceof Error ? `${err.name}: ${(err as { code?: string }).code ?? err.message}` : String(err);
      this.deps.logger.info({ delivery: delivery.id, event: delivery.event, reason }, 'webhooks: a delivery attempt got no answer');
      return { status: null, durationMs: Math.round(performance.now() - started) };
    }
  }

  /** Stops sending: no new round or claim; the round in progress finishes its sends (each at most timeoutMs). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.round;
  }
}
