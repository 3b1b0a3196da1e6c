import { randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import { PasskeyChallenge, type ChallengePurpose } from './models/passkey-challenge.js';
import { ModelService } from '../../kernel/sdk.js';

/**
 * WebAuthn challenges in the database, so any instance can verify what another handed out. A claim
 * is one conditional DELETE of an unexpired row: of concurrent claims exactly one gets the row, and
 * a replayed response finds nothing.
 */
export class ChallengesService extends ModelService({ PasskeyChallenge })<{ ttlMs: number }> {
  async issue(purpose: ChallengePurpose, input: { challenge: string; tenantId: string; userId: string | null }): Promise<PasskeyChallenge> {
    return this.models.PasskeyChallenge.create({
      id: randomUUID(),
      purpose,
      user_id: input.userId,
      tenant_id: input.tenantId,
      challenge: input.challenge,
      expires_at: Date.now() + this.deps.ttlMs,
    });
  }

  private async claim(row: PasskeyChallenge | null): Promise<PasskeyChallenge | null> {
    if (!row) return null;
    const deleted = await this.models.PasskeyChallenge.destroy({ where: { id: row.id, expires_at: { [Op.gt]: Date.now() } } });
    return deleted === 1 ? row : null;
  }

  /** The sign-in challenge a browser's cookie names; null when unknown, expired or already used. */
  async claimById(id: string, purpose: ChallengePurpose): Promise<PasskeyChallenge | null> {
    return this.claim(await this.models.PasskeyChallenge.findOne({ where: { id, purpose } }));
  }

  /** A registration challenge of this user, found by the value the authenticator signed. */
  async claimForUser(userId: string, challenge: string): Promise<PasskeyChallenge | null> {
    return this.claim(await this.models.PasskeyChallenge.findOne({ where: { purpose: 'register', user_id: userId, challenge } }));
  }

  async purgeExpired(): Promise<number> {
    return this.models.PasskeyChallenge.destroy({ where: { expires_at: { [Op.lte]: Date.now() } } });
  }
}
