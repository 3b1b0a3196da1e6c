import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import { NotFoundError, modelsOf, type ModelMap } from '../../kernel/sdk.js';
import { TokenAlreadyConsumedError, TokenExpiredError, TokenNotFoundError } from './errors.js';
import { EmailToken, type EmailTokenKind } from './models/email-token.js';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const iso = (ms: number | null) => (ms == null ? null : new Date(Number(ms)).toISOString());

export interface IssueInput {
  email: string;
  tenantId: string;
  ttlMs: number;
  userId?: string | null;
  role?: string | null;
  createdBy?: string | null;
}

/**
 * Single-use tokens sent by email (reset, magic link, invitation). Claiming is one conditional UPDATE
 * (unused and unexpired), so of many concurrent claims exactly one succeeds; a failed claim says why:
 * TOKEN_NOT_FOUND, TOKEN_EXPIRED or TOKEN_ALREADY_CONSUMED.
 */
export class EmailTokensService {
  private readonly models: { EmailToken: typeof EmailToken };

  constructor(models: ModelMap) {
    this.models = modelsOf(models, { EmailToken });
  }

  async issue(kind: EmailTokenKind, input: IssueInput): Promise<{ token: string; row: EmailToken }> {
    const token = randomBytes(32).toString('base64url');
    const now = Date.now();
    const row = await this.models.EmailToken.create({
      id: randomUUID(),
      tenant_id: input.tenantId,
      kind,
      token_hash: sha256(token),
      email: input.email.toLowerCase(),
      user_id: input.userId ?? null,
      role: input.role ?? null,
      created_by: input.createdBy ?? null,
      expires_at: now + input.ttlMs,
      created_at: now,
    });
    return { token, row };
  }

  private async explainFailure(kind: EmailTokenKind, token: string): Promise<never> {
    const row = await this.models.EmailToken.findOne({ where: { token_hash: sha256(token), kind } });
    if (!row) throw new TokenNotFoundError();
    if (row.consumed_at !== null) throw new TokenAlreadyConsumedError();
    throw new TokenExpiredError();
  }

  /** Reads a token without using it (GET /api/token/:value). */
  async peek(kind: EmailTokenKind, token: string): Promise<EmailToken> {
    const row = await this.models.EmailToken.findOne({
      where: { token_hash: sha256(token), kind, consumed_at: null, expires_at: { [Op.gt]: Date.now() } },
    });
    return row ?? this.explainFailure(kind, token);
  }

  /** Uses a token: succeeds once, atomically. */
  async claim(kind: EmailTokenKind, token: string): Promise<EmailToken> {
    const now = Date.now();
    const hash = sha256(token);
    const [claimed] = await this.models.EmailToken.update(
      { consumed_at: now },
      { where: { token_hash: hash, kind, consumed_at: null, expires_at: { [Op.gt]: now } } },
    );
    if (claimed !== 1) return this.explainFailure(kind, token);
    return (await this.models.EmailToken.findOne({ where: { token_hash: hash } }))!;
  }

  async list(kind: EmailTokenKind, tenantId: string) {
    const rows = await this.models.EmailToken.findAll({
      where: { kind, tenant_id: tenantId },
      order: [['created_at', 'DESC']],
      limit: 500,
    });
    return rows.map((r) => ({
      _id: r.id,
      email: r.email,
      role: r.role,
      expiresAt: iso(r.expires_at)!,
      consumedAt: iso(r.consumed_at),
      createdAt: iso(r.created_at)!,
      status: r.consumed_at !== null ? 'consumed' : Number(r.expires_at) <= Date.now() ? 'expired' : 'active',
    }));
  }

  async revoke(kind: EmailTokenKind, id: string, tenantId: string): Promise<void> {
    if (!(await this.models.EmailToken.destroy({ where: { id, kind, tenant_id: tenantId } })))
      throw new NotFoundError(`Token '${id}' not found`);
  }

  /** The spec's background purge of expired tokens. */
  async purgeExpired(): Promise<number> {
    return this.models.EmailToken.destroy({ where: { expires_at: { [Op.lte]: Date.now() } } });
  }
}
