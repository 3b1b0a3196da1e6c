import { expect } from 'chai';
import { every, recurringJob } from '../../kernel/every.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function recordingLogger() {
  const lines: Array<{ obj: any; msg: string }> = [];
  return { lines, warn: (obj: any, msg: string) => void lines.push({ obj, msg }) };
}

describe('every: recurring work', function () {
  it('never runs two rounds at once', async function () {
    let active = 0;
    let most = 0;
    let rounds = 0;
    const logger = recordingLogger();
    const task = every(logger as never, {
      name: 'slow task',
      everyMs: 5,
      run: async () => {
        active++;
        most = Math.max(most, active);
        await sleep(30);
        active--;
        rounds++;
      },
    });
    await sleep(80);
    await task.close();
    expect(most).to.equal(1);
    expect(rounds).to.be.greaterThan(0);
  });

  it('close stops the timer and waits for the round in progress', async function () {
    let rounds = 0;
    let finished = false;
    const task = every(recordingLogger() as never, {
      name: 'task',
      everyMs: 10,
      run: async () => {
        rounds++;
        await sleep(20);
        finished = true;
      },
    });
    await sleep(15);
    await task.close();
    expect(finished).to.equal(true);
    const after = rounds;
    await sleep(40);
    expect(rounds).to.equal(after);
  });

  it('logs a failed round by name and keeps running', async function () {
    const logger = recordingLogger();
    let rounds = 0;
    const task = every(logger as never, {
      name: 'failing task',
      everyMs: 10,
      run: async () => {
        rounds++;
        throw new Error('boom');
      },
    });
    await sleep(45);
    await task.close();
    expect(rounds).to.be.greaterThan(1);
    expect(logger.lines[0]!.msg).to.equal('failing task failed');
    expect(logger.lines[0]!.obj.err.message).to.equal('boom');
    await task.runNow();
  });

  it('runs on demand, and as a system job with the same run', async function () {
    let rounds = 0;
    const options = {
      name: 'purge-things',
      everyMs: 60_000,
      run: async () => ({ deleted: ++rounds }),
      job: { description: 'Purges things.' },
    };
    const task = every(recordingLogger() as never, options);
    await task.runNow();
    expect(rounds).to.equal(1);
    const job = recurringJob(options);
    expect(job.name).to.equal('purge-things');
    expect(await job.handler({} as never)).to.deep.equal({ deleted: 2 });
    await task.close();
  });
});
