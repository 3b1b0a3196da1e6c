import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger };

/** Keys whose values never reach a log line, at any depth. */
const SECRET_KEY =
  /pass(word)?|secret|token|authorization|cookie|api[-_]?key|^key$|private|credential|session(id)?$|totp|backup[-_]?codes?/i;
const CENSOR = '[redacted]';

/** Returns a copy of `value` with every secret-looking key censored (depth-limited, cycle-safe). */
export function redactSecrets(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return redactString(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > 8 || seen.has(value)) return '[…]';
  seen.add(value);
  if (value instanceof Error) {
    const text = (s: string | undefined) => (s === undefined ? s : redactString(s));
    return { type: value.name, message: text(value.message), stack: text(value.stack), code: (value as any).code };
  }
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1, seen));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_KEY.test(k) && v !== undefined && v !== null && v !== '' ? CENSOR : redactSecrets(v, depth + 1, seen);
  }
  return out;
}

/** Censors secrets that appear inside strings: URLs with passwords, bearer tokens, sck_ keys. */
export function redactString(text: string): string {
  return text
    .replace(/(\w+:\/\/[^:/\s]*:)[^@\s]+@/g, `$1${CENSOR}@`)
    .replace(/(bearer\s+)[^\s"']+/gi, `$1${CENSOR}`)
    .replace(/sck_[A-Za-z0-9_-]+/g, `sck_${CENSOR}`);
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      // redactSecrets (formatters.log) has already turned errors into plain objects; pino's own err
      // serializer would then relabel their type as 'Object'.
      serializers: { err: (value: unknown) => value },
      formatters: {
        level: (label) => ({ level: label }),
        log: (obj) => redactSecrets(obj) as Record<string, unknown>,
      },
      hooks: {
        logMethod(args, method) {
          const redacted: unknown[] = args.map((a) => (typeof a === 'string' ? redactString(a) : a));
          // pino takes the message from err.message when none is given; give it the censored one.
          const first = args[0] as any;
          const err = first instanceof Error ? first : first?.err instanceof Error && first.msg === undefined ? first.err : undefined;
          if (err && args.length === 1) redacted.push(redactString(err.message));
          return method.apply(this, redacted as Parameters<typeof method>);
        },
      },
    },
    destination ?? pino.destination({ sync: false }),
  );
}
