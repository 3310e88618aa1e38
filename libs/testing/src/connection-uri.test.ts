import { databaseNameOf, redactUri, uniqueDatabaseUri } from './connection-uri';

describe('uniqueDatabaseUri', () => {
  it('keeps the server, credentials and options and picks a new database on every call', () => {
    const base = 'mongodb://app:s3cret@127.0.0.1:27017/gateway?authSource=admin&retryWrites=false';

    const first = uniqueDatabaseUri(base, 'keys');
    const second = uniqueDatabaseUri(base, 'keys');

    expect(first).toMatch(
      /^mongodb:\/\/app:s3cret@127\.0\.0\.1:27017\/keys_[a-z0-9]+_[0-9a-f]{8}\?authSource=admin&retryWrites=false$/,
    );
    expect(second).not.toBe(first);
  });

  it('adds a database to a URI that names none, multi-host and SRV ones included', () => {
    expect(databaseNameOf(uniqueDatabaseUri('mongodb://127.0.0.1:27017', 'a'))).toMatch(/^a_/);
    expect(uniqueDatabaseUri('mongodb://h1:1,h2:2/?replicaSet=rs0', 'b')).toMatch(
      /^mongodb:\/\/h1:1,h2:2\/b_\w+\?replicaSet=rs0$/,
    );
    expect(uniqueDatabaseUri('mongodb+srv://cluster.example.net/', 'c')).toMatch(
      /^mongodb\+srv:\/\/cluster\.example\.net\/c_/,
    );
  });

  it('turns any prefix into a name FerretDB accepts, at most 63 characters', () => {
    const name = databaseNameOf(uniqueDatabaseUri('mongodb://localhost/', `Edge.Auth/${'x'.repeat(100)}`));

    expect(name).toMatch(/^edge_auth_x+_[a-z0-9]+_[0-9a-f]{8}$/);
    expect(name!.length).toBeLessThanOrEqual(63);
  });

  it('refuses a URI that is not mongodb:// and does not echo its password', () => {
    expect(() => uniqueDatabaseUri('postgres://u:pw@host/db', 'x')).toThrow(
      'not a mongodb:// URI: postgres://u:***@host/db',
    );
  });
});

describe('redactUri', () => {
  it('hides the password and keeps everything else', () => {
    expect(redactUri('nats://user:pw@127.0.0.1:4222')).toBe('nats://user:***@127.0.0.1:4222');
    expect(redactUri('mongodb://127.0.0.1:27017/db')).toBe('mongodb://127.0.0.1:27017/db');
  });
});
