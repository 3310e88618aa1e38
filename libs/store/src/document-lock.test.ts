import { DocumentLock } from './document-lock';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('document lock', () => {
  it('runs tasks of one document one after another, in call order', async () => {
    const lock = new DocumentLock();
    const events: string[] = [];
    const task = (name: string) => async () => {
      events.push(`${name} start`);
      await tick();
      events.push(`${name} end`);
      return name;
    };

    const results = await Promise.all([lock.run('a', task('1')), lock.run('a', task('2')), lock.run('a', task('3'))]);

    expect(results).toEqual(['1', '2', '3']);
    expect(events).toEqual(['1 start', '1 end', '2 start', '2 end', '3 start', '3 end']);
  });

  it('runs tasks of different documents concurrently', async () => {
    const lock = new DocumentLock();
    const events: string[] = [];
    const task = (name: string) => async () => {
      events.push(`${name} start`);
      await tick();
      events.push(`${name} end`);
    };
    await Promise.all([lock.run('a', task('a')), lock.run('b', task('b'))]);
    expect(events.slice(0, 2)).toEqual(['a start', 'b start']);
  });

  it('keeps going after a failed task and forgets idle documents', async () => {
    const lock = new DocumentLock();
    const failed = lock.run('a', () => Promise.reject(new Error('boom')));
    const next = lock.run('a', async () => 'ok');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ok');
    await tick();
    expect(lock.size).toBe(0);
  });
});
