import type { Connection, Model } from 'mongoose';
import { documentLockFor, type DocumentLock } from './document-lock';
import { DEFAULT_PLANS } from './plan.defaults';
import { PLAN_NAMES, planModel, type Plan, type PlanDocument, type PlanName } from './plan.model';

export class PlanRepository {
  private readonly plans: Model<PlanDocument>;
  private readonly lock: DocumentLock;

  constructor(connection: Connection) {
    this.plans = planModel(connection);
    this.lock = documentLockFor(connection);
  }

  /** Upserts the given plans (the documented defaults unless told otherwise) so the database matches them. */
  async seedDefaultPlans(plans: readonly Plan[] = Object.values(DEFAULT_PLANS)): Promise<Plan[]> {
    await Promise.all(
      plans.map((plan) =>
        this.lock.run(`plans:${plan.name}`, () =>
          this.plans.updateOne({ _id: plan.name }, { $set: toPlan(plan) }, { upsert: true, runValidators: true }),
        ),
      ),
    );
    return this.list();
  }

  async findByName(name: string): Promise<Plan | null> {
    if (!isPlanName(name)) return null;
    const doc = await this.plans.findOne({ _id: name }).lean<Plan>();
    return doc === null ? null : toPlan(doc);
  }

  async list(): Promise<Plan[]> {
    const docs = await this.plans.find({}).lean<Plan[]>();
    return docs.map(toPlan).sort((a, b) => PLAN_NAMES.indexOf(a.name) - PLAN_NAMES.indexOf(b.name));
  }
}

export function isPlanName(value: unknown): value is PlanName {
  return typeof value === 'string' && (PLAN_NAMES as readonly string[]).includes(value);
}

export function toPlan(doc: Plan): Plan {
  return {
    name: doc.name,
    providers: [...doc.providers],
    rate_limit_rps: doc.rate_limit_rps,
    rate_burst: doc.rate_burst,
    monthly_quota: doc.monthly_quota,
    overage_mode: doc.overage_mode,
    connection_allowance: doc.connection_allowance,
    mcp_tier: doc.mcp_tier,
    suggestion_allowance: doc.suggestion_allowance,
  };
}
