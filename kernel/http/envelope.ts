/**
 * A success answer the handler serialised itself: exactly the `{"success":true,"data":...}` JSON the
 * dispatcher would send for `data` (see serialiseEnvelope). Returned from a handler of an enveloped
 * route, it is sent as is, so a cached answer is neither parsed nor serialised again (the declared
 * response schema and the OpenAPI document stay those of `data`).
 */
export class SerialisedEnvelope {
  constructor(readonly json: string) {}
}

/** The JSON text of the success envelope around `data`, as the dispatcher writes it. */
export const serialiseEnvelope = (data: unknown): string => JSON.stringify({ success: true, data: data ?? null });
