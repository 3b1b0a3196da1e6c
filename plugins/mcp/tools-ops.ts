/**
 * Media by URL and bulk changes. A URL is fetched through the kernel's outbound guard (guardedFetch: loopback, private
 * and link-local addresses refused unless CMS_OUTBOUND_ALLOW_PRIVATE=true, redirects not followed) and stored by the
 * media plugin as the key (media:write, its type and size checks). Bulk changes of entries are data operations:
 * planned here, applied by confirm_data_operation with the plan's id and hash.
 */
import { Readable } from 'node:stream';
import { guardedFetch, OutboundAddressError, ServiceUnavailableError, ValidationError } from '../../kernel/sdk.js';
import { ownerOf, type AgentContext, type ToolAnswer } from './agent.js';
import { BULK_DOMAIN, type BulkInput } from './bulk-domain.js';
import { MEDIA_COLLECTION } from './session-store.js';

const FETCH_TIMEOUT_MS = 30_000;

function fileNameOf(url: URL, given?: string): string {
  const last = decodeURIComponent(url.pathname.split('/').pop() ?? '').replace(/[^\w.-]+/g, '-');
  return (given ?? last).slice(0, 255) || 'download';
}

export async function uploadMediaByUrl(agent: AgentContext, input: { url: string; filename?: string }): Promise<ToolAnswer> {
  const media = agent.services.mediaClient;
  if (!media) throw new ServiceUnavailableError('Media is not enabled on this installation');
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    throw new ValidationError('url is not a URL', [{ path: 'url', message: 'not a URL' }]);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password)
    throw new ValidationError('url must be http or https without credentials', [{ path: 'url', message: 'http or https only' }]);
  const client = media(agent.identity);
  const owner = ownerOf(agent);
  await agent.services.sessions.open(owner);
  await agent.services.sessions.assertRoom(owner, MEDIA_COLLECTION, null);
  let res: Response;
  try {
    res = await guardedFetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) }, agent.services.allowPrivate);
  } catch (err) {
    if (err instanceof OutboundAddressError)
      throw new ValidationError(
        `The URL's host is or resolves to an internal address (loopback, private, link-local); not fetched unless the operator sets CMS_OUTBOUND_ALLOW_PRIVATE=true`,
        [{ path: 'url', message: 'internal address' }],
      );
    throw new ValidationError(`The URL could not be fetched (${(err as Error).message})`, [{ path: 'url', message: 'not fetched' }]);
  }
  if (res.status !== 200 || !res.body) {
    await res.body?.cancel();
    throw new ValidationError(`The URL answered ${res.status} (redirects are not followed); nothing was stored`, [
      { path: 'url', message: `status ${res.status}` },
    ]);
  }
  const view = await client.upload(fileNameOf(url, input.filename), Readable.fromWeb(res.body as never));
  await agent.services.sessions.record(owner, {
    kind: 'created',
    collection: MEDIA_COLLECTION,
    entryId: view._id,
    before: null,
    versionAfter: null,
  });
  return view as unknown as ToolAnswer;
}

function engine(agent: AgentContext) {
  const dataOps = agent.services.dataOps;
  if (!dataOps) throw new ServiceUnavailableError('Data operations are not enabled on this installation');
  return dataOps;
}

export async function runDataOperation(
  agent: AgentContext,
  input: { collection: string; items: Array<{ id?: string; data: Record<string, unknown> }> },
): Promise<ToolAnswer> {
  const planInput: BulkInput = {
    collection: input.collection,
    items: input.items,
    session: { id: agent.sessionId, keyId: agent.keyId, keyName: agent.keyName, via: agent.via },
  };
  const plan = await engine(agent).plan(BULK_DOMAIN, planInput, 'merge', agent.identity);
  return {
    ...plan,
    next: plan.blockedReasons.length
      ? 'The plan is blocked: fix the reasons and plan again'
      : 'Nothing was changed yet. Show the plan to the user; to apply it call confirm_data_operation with planId and planHash',
  };
}

export async function confirmDataOperation(agent: AgentContext, input: { planId: string; planHash: string }): Promise<ToolAnswer> {
  const answer = await engine(agent).apply(
    BULK_DOMAIN,
    { planId: input.planId, planHash: input.planHash, confirmed: true },
    agent.identity,
    {
      inline: true,
    },
  );
  return { status: answer.status, ...answer.data };
}
