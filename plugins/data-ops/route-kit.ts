/**
 * The plan/apply/jobs/history/verify routes of a data-operation domain, once. A domain's plugin says what
 * differs (paths, permissions, summaries, schemas: the OpenAPI document is the routes' own) and gets
 * route definitions that call the engine (`scope.dataOps`) and answer its result; apply answers
 * 200 with the outcome or 202 with a job id (`ctx.status = answer.status`).
 */
import { z } from 'zod';
import type { Context } from 'koa';
import { defineRoute, type RouteContext, type RouteDefinition } from '../../kernel/sdk.js';
import type { SafetyMode } from './public.js';
import type { ApplyAnswer, ApplyRequest } from './public.js';
import { applyAnswerSchema, historyAnswerSchema, jobsAnswerSchema, planViewSchema } from './wire-schemas.js';

/** The apply body of most domains: planId, confirmed (required), planHash (optional). */
export const confirmedApplyBodySchema = z.strictObject({
  planId: z.string().min(1).max(100),
  confirmed: z.boolean(),
  planHash: z.string().min(1).max(200).optional(),
});

/** The query of the jobs and history routes: ?jobId= narrows to one job. */
export const jobIdQuerySchema = z.object({ jobId: z.string().min(1).max(100).optional() });

/** Sets the status of the engine's apply answer (200 inline, 202 queued) and answers its data. */
export function answerApply(ctx: Context, answer: ApplyAnswer): ApplyAnswer['data'] {
  ctx.status = answer.status;
  return answer.data;
}

/** What every generated route may state: its OpenAPI text, and access when it differs from the domain's. */
export interface DataRouteText {
  /** Default `<prefix>/<plan|apply|jobs|history|verify>`. */
  path?: string;
  /** Default: the domain's write permission (plan, apply, verify) or read permission (jobs, history). */
  permission?: string;
  summary: string;
  description?: string;
}

export interface DataRouteCommon {
  /** The engine's domain id. */
  domain: string;
  /** The routes' path prefix, e.g. `/api/config`. */
  prefix: string;
  tags: string[];
  permissions: { read: string; write: string };
  installation?: 'tenant' | 'admin';
}

export interface PlanRouteOptions<B extends z.ZodType = z.ZodType> extends DataRouteText {
  /** The plan body (default none). */
  body?: B;
  /** The engine's input and mode from the body: default the body without `mode`, and its `mode`. */
  input?(body: z.output<B>, route: RouteContext): { input: unknown; mode: SafetyMode | undefined; domain?: string };
}

export interface ApplyRouteOptions extends DataRouteText {
  /** Default `confirmedApplyBodySchema`. */
  body?: z.ZodType;
  /** The domain when one route serves several; default the common domain. */
  domain?: string;
  /** Runs before the engine's apply (e.g. a check of the stored plan); throws to refuse. */
  before?(request: ApplyRequest, route: RouteContext): Promise<void> | void;
}

export interface ListRouteOptions extends DataRouteText {
  query?: z.ZodType;
}

export interface VerifyRouteOptions<B extends z.ZodType = z.ZodType> extends DataRouteText {
  body: B;
  response: z.ZodType;
  handler(body: z.output<B>, route: RouteContext): Promise<unknown> | unknown;
}

export interface DataOpRoutesOptions extends DataRouteCommon {
  plan?: PlanRouteOptions<any>;
  apply?: ApplyRouteOptions;
  jobs?: ListRouteOptions;
  history?: ListRouteOptions;
  verify?: VerifyRouteOptions<any>;
}

const access = (common: DataRouteCommon, text: DataRouteText, kind: 'read' | 'write', suffix: string) => ({
  path: text.path ?? `${common.prefix}/${suffix}`,
  permission: text.permission ?? common.permissions[kind],
  ...(common.installation ? { installation: common.installation } : {}),
  tags: common.tags,
  summary: text.summary,
  ...(text.description === undefined ? {} : { description: text.description }),
});

const defaultPlanInput = (body: unknown): { input: unknown; mode: SafetyMode | undefined; domain?: string } => {
  const { mode, ...input } = (body ?? {}) as { mode?: SafetyMode };
  return { input, mode };
};

/** POST <prefix>/plan: the engine's plan (Validate -> Snapshot -> Plan); answers the plan view. */
export function planRoute<B extends z.ZodType>(common: DataRouteCommon, options: PlanRouteOptions<B>): RouteDefinition {
  return defineRoute({
    method: 'POST',
    ...access(common, options, 'write', 'plan'),
    request: options.body ? { body: options.body } : {},
    response: planViewSchema,
    async handler(route) {
      const { input, mode, domain } = options.input ? options.input(route.body as z.output<B>, route) : defaultPlanInput(route.body);
      return route.scope.dataOps.plan(domain ?? common.domain, input, mode, route.identity);
    },
  });
}

/** POST <prefix>/apply: the engine's apply of a stored plan; 200 inline with the outcome, 202 with a job id. */
export function applyRoute(common: DataRouteCommon, options: ApplyRouteOptions): RouteDefinition {
  const domain = options.domain ?? common.domain;
  return defineRoute({
    method: 'POST',
    ...access(common, options, 'write', 'apply'),
    request: { body: options.body ?? confirmedApplyBodySchema },
    response: applyAnswerSchema,
    async handler(route) {
      const request = route.body as ApplyRequest;
      await options.before?.(request, route);
      return answerApply(route.ctx, await route.scope.dataOps.apply(domain, request, route.identity));
    },
  });
}

/** GET <prefix>/jobs or <prefix>/history: the engine's list of that name for the domain, newest first (?jobId= one). */
function jobListRoute(list: 'jobs' | 'history', response: z.ZodType, common: DataRouteCommon, options: ListRouteOptions): RouteDefinition {
  return defineRoute({
    method: 'GET',
    ...access(common, options, 'read', list),
    request: { query: options.query ?? jobIdQuerySchema },
    response,
    async handler({ scope, identity, query }) {
      return { jobs: await scope.dataOps[list](common.domain, identity, (query as { jobId?: string }).jobId) };
    },
  });
}

/** GET <prefix>/jobs: the domain's background apply jobs, newest first (?jobId= one). */
export const jobsRoute = (common: DataRouteCommon, options: ListRouteOptions): RouteDefinition =>
  jobListRoute('jobs', jobsAnswerSchema, common, options);

/** GET <prefix>/history: the domain's applies, jobs and inline ones, newest first (?jobId= one). */
export const historyRoute = (common: DataRouteCommon, options: ListRouteOptions): RouteDefinition =>
  jobListRoute('history', historyAnswerSchema, common, options);

/** POST <prefix>/verify: the domain's own check (its handler). */
export function verifyRoute<B extends z.ZodType>(common: DataRouteCommon, options: VerifyRouteOptions<B>): RouteDefinition {
  return defineRoute({
    method: 'POST',
    ...access(common, options, 'write', 'verify'),
    request: { body: options.body },
    response: options.response,
    handler: (route) => options.handler(route.body as z.output<B>, route),
  });
}

/** The domain's data-operation routes, in the order plan, apply, jobs, history, verify (those given). */
export function dataOpRoutes(options: DataOpRoutesOptions): RouteDefinition[] {
  const routes: RouteDefinition[] = [];
  if (options.plan) routes.push(planRoute(options, options.plan));
  if (options.apply) routes.push(applyRoute(options, options.apply));
  if (options.jobs) routes.push(jobsRoute(options, options.jobs));
  if (options.history) routes.push(historyRoute(options, options.history));
  if (options.verify) routes.push(verifyRoute(options, options.verify));
  return routes;
}
