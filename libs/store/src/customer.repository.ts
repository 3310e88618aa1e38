import type { Connection, Model } from 'mongoose';
import { customerModel, type CustomerDocument } from './customer.model';
import { documentLockFor, type DocumentLock } from './document-lock';
import { newCustomerId } from './ids';
import type { PlanName } from './plan.model';
import { isPlanName } from './plan.repository';
import { StoreError, isDuplicateKeyError, requireString } from './store-error';

/** A customer as the rest of the system sees it; the password hash is read only through its own method. */
export interface CustomerRecord {
  customer_id: string;
  name: string;
  email: string;
  plan: PlanName;
  created_at: Date;
  updated_at: Date;
}

export interface CreateCustomerInput {
  name: string;
  email: string;
  plan: PlanName;
  password_hash?: string;
}

export class CustomerRepository {
  private readonly customers: Model<CustomerDocument>;
  private readonly lock: DocumentLock;

  constructor(connection: Connection) {
    this.customers = customerModel(connection);
    this.lock = documentLockFor(connection);
  }

  /** Throws StoreError 'duplicate' when the email is taken. */
  async create(input: CreateCustomerInput): Promise<CustomerRecord> {
    requireString(input.name, 'name');
    requireString(input.email, 'email');
    if (!isPlanName(input.plan)) throw new StoreError('invalid_input', 'plan must be trial, growth or business');
    try {
      const customerId = newCustomerId();
      const doc = await this.customers.create({
        _id: customerId,
        customer_id: customerId,
        name: input.name,
        email: input.email,
        plan: input.plan,
        password_hash: input.password_hash ?? null,
      });
      return toCustomerRecord(doc.toObject());
    } catch (error) {
      if (isDuplicateKeyError(error)) throw new StoreError('duplicate', 'a customer with this email exists');
      throw error;
    }
  }

  async findById(customerId: string): Promise<CustomerRecord | null> {
    const doc = await this.customers.findOne({ _id: requireString(customerId, 'customer_id') }).lean();
    return doc === null ? null : toCustomerRecord(doc);
  }

  async findByEmail(email: string): Promise<CustomerRecord | null> {
    const normalised = requireString(email, 'email').trim().toLowerCase();
    const doc = await this.customers.findOne({ email: normalised }).lean();
    return doc === null ? null : toCustomerRecord(doc);
  }

  /** For the portal's sign-in only. */
  async getPasswordHash(customerId: string): Promise<string | null> {
    const doc = await this.customers
      .findOne({ _id: requireString(customerId, 'customer_id') }, { password_hash: 1 })
      .lean();
    return doc?.password_hash ?? null;
  }

  async setPasswordHash(customerId: string, passwordHash: string): Promise<boolean> {
    requireString(customerId, 'customer_id');
    requireString(passwordHash, 'password_hash');
    const result = await this.lock.run(`customers:${customerId}`, () =>
      this.customers.updateOne({ _id: customerId }, { $set: { password_hash: passwordHash } }),
    );
    return result.matchedCount === 1;
  }

  async setPlan(customerId: string, plan: PlanName): Promise<CustomerRecord | null> {
    requireString(customerId, 'customer_id');
    if (!isPlanName(plan)) throw new StoreError('invalid_input', 'plan must be trial, growth or business');
    const doc = await this.lock.run(`customers:${customerId}`, () =>
      this.customers.findOneAndUpdate({ _id: customerId }, { $set: { plan } }, { new: true }).lean(),
    );
    return doc === null ? null : toCustomerRecord(doc);
  }
}

function toCustomerRecord(doc: CustomerDocument): CustomerRecord {
  return {
    customer_id: doc.customer_id,
    name: doc.name,
    email: doc.email,
    plan: doc.plan,
    created_at: doc.created_at,
    updated_at: doc.updated_at,
  };
}
