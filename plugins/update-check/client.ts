import { z } from 'zod';
import { signedUpdateEnvelope } from '../../lib/text/update-signature.js';
import { HEARTBEAT_TIMEOUT_MS } from './options.js';
import type { UpdateCheckPayload } from './payload.js';
import type { Advisory } from './state-store.js';

/** A failed exchange with the update server: the HTTP status and the server's error code when it sent one. Never a secret. */
export class UpdateServerError extends Error {
  constructor(
    message: string,
    readonly status: number | null = null,
    readonly code: string | null = null,
  ) {
    super(message);
    this.name = 'UpdateServerError';
  }
}

const secretSchema = z.object({ secret: z.string().regex(/^[0-9a-fA-F]{64}$/, '64 hex characters') });

const checkSchema = z.object({
  latest_version: z.string().min(1).max(64),
  current_version: z.string().max(64).optional(),
  update_available: z.boolean().optional(),
  advisories: z
    .array(
      z.object({
        id: z.union([z.string(), z.number()]).transform(String),
        severity: z.string().max(32).default('medium'),
        affected: z.string().max(200).default('*'),
        fixed_in: z.string().max(64).nullish(),
        summary: z.string().max(2000).default(''),
      }),
    )
    .max(100)
    .default([]),
});

export interface CheckAnswer {
  latestVersion: string;
  currentVersion: string | null;
  updateAvailable: boolean | null;
  advisories: Advisory[];
}

/** The success body, whether the server answers bare or in the `{success: true, data}` envelope. */
function unwrap(body: unknown): unknown {
  if (body && typeof body === 'object' && 'success' in body && (body as { success: unknown }).success === true && 'data' in body)
    return (body as { data: unknown }).data;
  return body;
}

function reason(err: unknown, timeoutMs: number): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return `no answer within ${timeoutMs / 1000} s`;
  if (e.name === 'AbortError') return 'stopped';
  const cause = e.cause?.code ?? e.cause?.message;
  return cause ? `${e.message} (${cause})` : e.message;
}

/**
 * The two calls of the update server: POST /api/register {installation_id} -> {secret}, and POST
 * /api/check-update with the signed envelope {payload, signature, timestamp}. Each has the spec's
 * 10 s heartbeat timeout and stops when the instance stops.
 */
export class UpdateServerClient {
  /** `timeoutMs` is the spec's 10 s heartbeat timeout; only tests pass a shorter one. */
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs = HEARTBEAT_TIMEOUT_MS,
  ) {}

  private async post(path: string, body: unknown, signal?: AbortSignal): Promise<{ status: number; body: unknown }> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    let res: Response;
    try {
      res = await fetch(new URL(path, this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
        signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
        redirect: 'error',
      });
    } catch (err) {
      throw new UpdateServerError(`update server not reachable: ${reason(err, this.timeoutMs)}`);
    }
    let parsed: unknown = null;
    try {
      parsed = await res.json();
    } catch {
      parsed = null;
    }
    return { status: res.status, body: parsed };
  }

  private refused(what: string, status: number, body: unknown): UpdateServerError {
    const code =
      body && typeof body === 'object' && typeof (body as { error?: unknown }).error === 'string'
        ? (body as { error: string }).error
        : null;
    const safeCode = code && /^[A-Z0-9_]{1,64}$/.test(code) ? code : null;
    return new UpdateServerError(`${what} answered HTTP ${status}${safeCode ? ` ${safeCode}` : ''}`, status, safeCode);
  }

  async register(installationId: string, signal?: AbortSignal): Promise<string> {
    const res = await this.post('api/register', { installation_id: installationId }, signal);
    if (res.status !== 200 && res.status !== 201) throw this.refused('register', res.status, res.body);
    const parsed = secretSchema.safeParse(unwrap(res.body));
    if (!parsed.success) throw new UpdateServerError('register answered without a 64-hex secret', res.status);
    // Used exactly as sent: the HMAC key is the secret's text (lib/text/update-signature.ts).
    return parsed.data.secret;
  }

  async checkUpdate(secret: string, payload: UpdateCheckPayload, signal?: AbortSignal): Promise<CheckAnswer> {
    const res = await this.post('api/check-update', signedUpdateEnvelope(secret, payload), signal);
    if (res.status !== 200) throw this.refused('check-update', res.status, res.body);
    const parsed = checkSchema.safeParse(unwrap(res.body));
    if (!parsed.success) throw new UpdateServerError('check-update answered without latest_version', res.status);
    const d = parsed.data;
    return {
      latestVersion: d.latest_version,
      currentVersion: d.current_version ?? null,
      updateAvailable: d.update_available ?? null,
      advisories: d.advisories.map((a) => ({
        id: a.id,
        severity: a.severity,
        affected: a.affected,
        fixedIn: a.fixed_in ?? null,
        summary: a.summary,
      })),
    };
  }
}
