import { highestRateThatRefuses, lowestRateThatAccepts } from './bucket';

/** One request as the pace remembers it: when it was let through and how the service answered. */
export interface Ticket {
	sent: number;
	outcome?: 'ok' | 'refused' | 'other';
	/** When its answer came: it reached the service between `sent` and this */
	answered?: number;
}

const LOG_MAX = 20_000;
/** A fitted rate is used at this share, for the jitter between when we send and when the service counts */
const MARGIN = 0.97;
/** Without a fitted rate, the pace grows fourfold every second until the service refuses again */
const DISCOVERY_GROWTH = 4;
/** With a fitted rate and no 429 for this long, the pace creeps up (+1% per second) in case the limit was raised */
const CREEP_AFTER_MS = 10_000;
/** A window is probed this far into it, after its bunch: a bucket has refilled by then, a window has not */
const PROBE_AT = 0.25;

/** Two bounds of a rate agree when the lower is found and not over the higher (5% slack for jitter). */
const agree = (low: number, high: number) => low > 0 && low <= 1.05 * high;

/**
 * The request pace of one gate, learned from the service's 429s: first as a window (fixed or sliding: `burst` at
 * once, then nothing until they leave it), then, if it refills between bunches, as a token bucket (`burst` at once
 * after a quiet spell, `rate` per second after that). There is no pace before the first 429.
 *
 * - **Burst**: the requests accepted in the second before the first refused one; a 429 among the first burst's worth
 *   sent after a later pause sets it to what the service took of them. Once a bucket's rate is fitted, what it
 *   refilled while that bunch went out is taken off.
 * - **Window**: the first bunch and the pause after it: `burst` per that long, sent no faster than the service took
 *   them (a bucket refilled meanwhile). The bunch after a pause, refused, sets both anew from what the service took
 *   of it (fewer, or a slow bucket's refill); a request refused later only grows the window 3% (it reached the
 *   service sooner than it left here). Once, a quarter window after a whole bunch sent since the pause, one more
 *   request probes: a window refuses it, a bucket takes it.
 * - **Discovery**: a bucket's pace starts at `burst / pause` per second and grows fourfold every second to a 429.
 * - **Fit**: a 429 while pacing shows the bucket empty again, after the last request sent before the pause (those
 *   sent after the refused one took any token that refilled). Between two empty moments, the lowest refill rate under
 *   which a bucket of `burst` could have accepted what the service accepted, and the highest under which the refused
 *   one found it empty, bound its rate: the pace is 97% of the middle, the best estimate is kept (one whose pace was
 *   refused comes down by at most 3%), and bounds that disagree go back to discovering.
 * - Our side is a token bucket (GCRA) a fifth smaller than the service's: after a pause, most of a burst goes at once.
 */
export class Pace {
	burst?: number;
	rate?: number;
	private fitted = false;
	/** The bunch that counted the burst: how many the service took, sent over how long */
	private counted?: { n: number; ms: number };
	/** Theoretical arrival time of the GCRA: a request may go once `tat - tolerance <= now` */
	private tat = 0;
	/** When the bucket was last empty: the last send before the pause a 429 asked for */
	private emptyAt?: number;
	private lastChange = 0;
	private log: Ticket[] = [];
	/** The best estimate of the service's rate so far */
	private best?: number;
	/** The two empty moments to fit the rate between, once the pause has ended */
	private toFit?: { from: number; to: number; bunchSince?: number; ends?: number };
	/** When traffic resumed after the last pause */
	private resumedAt?: number;
	/** While the service is taken for a window: at most `burst` sends in any this many ms */
	private window?: number;
	/** The last requests sent while a window (at most `burst` + 1) */
	private taken: Ticket[] = [];
	/** The request sent between two bunches to tell a window from a bucket */
	private probe?: Ticket;

	/** Remembers a request let through now. */
	record(now: number): Ticket {
		const ticket: Ticket = { sent: now };
		if (this.window !== undefined) {
			if (!this.probe && this.bunch(now).length >= this.burst!) this.probe = ticket;
			this.taken = [...this.taken.slice(-Math.floor(this.burst!)), ticket];
		}
		if (this.log.length >= LOG_MAX) this.log = this.log.slice(-LOG_MAX / 2);
		this.log.push(ticket);
		return ticket;
	}

	/** Whether requests are paced (after the first 429). */
	get active(): boolean {
		return this.emptyAt !== undefined;
	}

	/** How long until the next request may go (0: now; Infinity: after the next answer). */
	delay(now: number): number {
		if (this.emptyAt === undefined) return 0;
		if (this.toFit?.ends !== undefined)
			this.takeWindow(this.toFit.from, this.toFit.to, this.toFit.ends);
		if (this.window !== undefined) {
			if (this.probe?.outcome !== 'ok') return this.windowDelay(now);
			// a request between two bunches went through: a bucket, paced from here as after any first 429
			const bunchEnd = this.taken[this.taken.length - 2]?.sent ?? this.probe.sent;
			this.rate = Math.max(this.rate!, 1000 / Math.max(1, this.probe.sent - bunchEnd));
			this.window = undefined;
			this.lastChange = now;
			this.tat = bunchEnd + ((this.capacity() + 1) * 1000) / this.rate;
		} else if (this.toFit) {
			if (this.toFit.bunchSince !== undefined)
				this.recount(this.toFit.bunchSince, this.toFit.to, now);
			else this.fit(this.toFit.from, this.toFit.to, now);
			this.toFit = undefined;
		}
		this.grow(now);
		const tolerance = (this.capacity() - 1) * (1000 / this.rate!);
		// under a millisecond is not worth a timer (and a growing rate would chase it ever closer)
		const delay = this.tat - tolerance - now;
		return delay < 1 ? 0 : delay;
	}

	/** One request goes now (after `delay` said 0). */
	take(now: number): void {
		if (this.window === undefined && this.rate !== undefined)
			this.tat = Math.max(this.tat, now) + 1000 / this.rate;
	}

	/**
	 * While a window: `burst` at once, then nothing until the first leaves it; once, the probe. A request is in the
	 * window until its answer came, a window later: it may have reached the service as late as that (a bunch goes out
	 * over a while, and not at the same speed each time).
	 */
	private windowDelay(now: number): number {
		const b = Math.floor(this.burst!);
		const inWindow = this.taken
			.map((t) => t.answered ?? Infinity)
			.filter((at) => at > now - this.window!)
			.sort((x, y) => x - y);
		// the bunch goes out no faster than the one the service took: a bucket that refilled meanwhile takes it again
		// (within half a window, so that the probe still comes before the bunch's first leaves a window)
		const spread = this.counted
			? Math.min(this.counted.ms / this.counted.n, this.window! / 2 / b)
			: 0;
		if (inWindow.length < b)
			return Math.max(0, this.resumedAt! + this.bunch(now).length * spread - now);
		const free = inWindow[inWindow.length - b] + this.window! - now;
		// until an answer tells: when the request that would leave the window reached the service, or the probe's verdict
		if (free === Infinity || (this.probe && !this.probe.outcome)) return Infinity;
		// the probe goes after a whole bunch sent since the pause (before it, the pause let a window reset too)
		if (this.probe || this.bunch(now).length < b) return free;
		const last = this.taken[this.taken.length - 1].sent;
		return Math.max(0, Math.min(free, last + PROBE_AT * this.window! - now));
	}

	/** The sends in the window since the last pause. */
	private bunch(now: number): Ticket[] {
		return this.taken.filter((t) => t.sent > now - this.window! && t.sent >= this.resumedAt!);
	}

	/** The service took what was sent from `from` to `at`, refused `at`, and asked for a pause that `ends`. */
	private takeWindow(from: number, at: number, ends: number): void {
		this.toFit = undefined;
		const bunch = this.accepted(from, at + 1);
		if (bunch.length && bunch.length <= (this.burst ?? Infinity))
			this.counted = { n: bunch.length, ms: at - bunch[0].sent };
		this.burst = Math.max(1, Math.min(this.burst ?? Infinity, bunch.length));
		this.window = Math.max(1, ends - (bunch[0]?.sent ?? at));
		this.rate = (this.burst * 1000) / Math.max(1000, ends - at);
	}

	/**
	 * The first 429 of a wave (the service's bucket was empty when `ticket` reached it); traffic resumes at `resume`.
	 * Fits the rate (after the first), and empties our own bucket.
	 */
	refused(ticket: Ticket, now: number, resume: number): void {
		const previous = this.emptyAt;
		const resumed = this.resumedAt;
		if (ticket === this.probe && this.window !== undefined) return; // a window, as taken: no more probes
		// a late answer to a request sent before the bucket was last found empty tells nothing new
		if (this.window === undefined && previous !== undefined && ticket.sent <= previous) return;
		// requests sent after the refused one may have found a refilled token; after the last of them, none was left
		this.emptyAt = this.log[this.log.length - 1]?.sent ?? ticket.sent;
		this.resumedAt = resume;
		if (this.burst === undefined || this.window !== undefined) {
			if (this.window && ticket.sent < resumed!) return; // a late answer from before the last pause
			// past the bunch after a pause: it reached the service sooner than the window's first left it there
			if (this.window && ticket.sent - resumed! >= this.window) return void (this.window *= 1.03);
			// the first 429, or the bunch after a pause refused: counted once the pause ends and its answers are in
			const from = this.window ? resumed! : ticket.sent - 1000;
			// the pause is counted from when the refused request left, not from when its answer came back: the
			// service counted it by then (a request counts in the window until its answer came, which makes up for it)
			const ends = ticket.sent + Math.max(0, resume - now);
			this.toFit = { from: from - 1, to: ticket.sent, ends };
			return;
		}
		if (previous !== undefined) {
			// refused before the burst was spent after a pause: the service's bucket is smaller than we thought
			const since = this.log.filter((t) => t.sent >= resumed! && t.sent < ticket.sent).length;
			const bunch = ticket.sent >= resumed! && since < this.burst;
			this.toFit = { from: previous, to: ticket.sent, bunchSince: bunch ? resumed : undefined };
		}
		// our bucket is empty where the service's was, and refills at our pace during the pause
		this.tat = ticket.sent + (this.capacity() * 1000) / this.rate!;
		this.lastChange = Math.max(now, resume);
	}

	/**
	 * When the pause after a 429 ends (the answers to requests sent before the refused one are in by then, also
	 * those slower than the 429): the lowest rate that explains what the service accepted between its two empty
	 * moments.
	 */
	private fit(from: number, to: number, now: number): void {
		const accepted = this.accepted(from, to).map((t) => t.sent);
		let [low, high] = this.bounds(accepted, from, to);
		// A bucket refilled while the bunch that counted the burst went out, so it holds fewer: between the count less
		// the refill and one more (the refused request came before the next token). If the bounds disagree then, it
		// did not.
		for (let i = 0; i < 3 && this.counted && agree(low, high); i++) {
			const { n, ms } = this.counted;
			const burst = Math.max(1, Math.min(n, n + 0.5 - (ms * Math.min(low, high)) / 1000));
			const kept = this.burst!;
			if (burst > kept - 0.5) break;
			this.burst = burst;
			const [l, h] = this.bounds(accepted, from, to);
			if (!agree(l, h)) {
				this.burst = kept;
				break;
			}
			[low, high] = [l, h];
		}
		// The rate lies between the two bounds: take the middle. When they disagree (jitter between when we send and
		// when the service counts, or a burst counted too high), start from what the service plainly accepted per
		// second between the two 429s and go on discovering.
		if (!agree(low, high)) {
			const average = (1000 * accepted.length) / Math.max(1, to - from);
			this.rate = Math.max(0.1, this.rate! / 2, MARGIN * average);
			this.fitted = false;
		} else {
			const estimate = Number.isFinite(high) ? (low + high) / 2 : low;
			// the service refused faster than it allows: the limit was lowered, and only the lower bound is sure;
			// else keep the best estimate (a later, shorter stretch between two 429s gives a weaker one, and other
			// clients of the service take their share of it); one whose pace was refused was too high for the margin,
			// and comes down by it, not below the new fit
			if (this.best !== undefined && 1.05 * high < this.best) this.best = low;
			else if (this.fitted) this.best = Math.max(estimate, MARGIN * this.best!);
			else this.best = Math.max(this.best ?? 0, estimate);
			this.rate = Math.max(0.1, MARGIN * this.best);
			this.fitted = true;
		}
		this.lastChange = now;
		this.tat = to + (this.capacity() * 1000) / this.rate;
	}

	/** The rates between which the service's lies, for a bucket of `burst`; `low` is 0 when none fits. */
	private bounds(accepted: number[], from: number, to: number): number[] {
		let low = lowestRateThatAccepts(accepted, from, this.burst!);
		// no rate fits: the bucket is larger than the first 429 showed
		while (low === 0 && accepted.length && this.burst! < accepted.length) {
			this.burst = Math.min(accepted.length, this.burst! * 2);
			this.counted = undefined;
			low = lowestRateThatAccepts(accepted, from, this.burst);
		}
		return [low, highestRateThatRefuses(accepted, from, to, this.burst!)];
	}

	/**
	 * After a 429 among the first burst's worth of requests sent after a pause: the service's bucket, refilled during
	 * the pause, held only what it accepted of them. That is the burst from now on. It says nothing of the rate (a
	 * bucket counted too large would otherwise be read as a slow refill, and the pace fitted far below the service's
	 * rate).
	 */
	private recount(since: number, to: number, now: number): void {
		const bunch = this.log.filter((t) => t.sent >= since).slice(0, Math.floor(this.burst!));
		const accepted = bunch.filter((t) => t.outcome === 'ok').length;
		if (accepted < this.burst!) {
			this.burst = Math.max(1, accepted);
			this.counted = { n: this.burst, ms: to - (bunch[0]?.sent ?? to) };
		}
		this.lastChange = now;
		this.tat = to + (this.capacity() * 1000) / this.rate!;
	}

	/**
	 * Our bucket: a fifth smaller than the service's (at least one token less, at least one token), so that requests
	 * that reach it bunched up (network jitter after a burst), or a burst counted one too high, still find a token.
	 */
	private capacity(): number {
		const burst = Math.floor(this.burst!);
		return Math.max(1, Math.min(burst - 1, Math.floor(0.8 * burst)));
	}

	/** Requests sent in (from, to) that the service accepted, in the order they were sent */
	private accepted(from: number, to: number): Ticket[] {
		return this.log.filter((t) => t.outcome === 'ok' && t.sent > from && t.sent < to);
	}

	/** Discovery: ×DISCOVERY_GROWTH per second; fitted: creeps up after CREEP_AFTER_MS without a 429. */
	private grow(now: number): void {
		if (this.rate === undefined || now <= this.lastChange) return;
		if (!this.fitted) {
			this.rate *= DISCOVERY_GROWTH ** ((now - this.lastChange) / 1000);
			this.lastChange = now;
		} else if (now - this.lastChange > CREEP_AFTER_MS) {
			this.rate *= 1.01 ** ((now - this.lastChange - CREEP_AFTER_MS) / 1000);
			this.lastChange = now - CREEP_AFTER_MS;
		}
	}
}
