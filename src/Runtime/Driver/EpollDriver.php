<?php

declare(strict_types=1);

namespace Nexus\Runtime\Driver;

/**
 * Readiness through Linux epoll, called through FFI (libc's epoll_create1, epoll_ctl,
 * epoll_wait): a poll costs time for the streams that are ready, not for all that are watched,
 * and descriptors past 1,024 are fine, so one process can hold as many connections as its
 * descriptor limit (RLIMIT_NOFILE, raised to the hard limit by DriverFactory) allows.
 *
 * Level-triggered, like stream_select(): a stream that still has bytes is reported again. Socket
 * streams (TCP, Unix, socket pairs) are put in epoll; any other stream (a pipe, a file, a
 * PostgreSQL socket, which PHP gives no inode for) is polled by a StreamSelectDriver inside this
 * one, together with the epoll descriptor itself, so that one wait covers both. A socket watched
 * for reading gets PHP's read buffer turned off (epoll cannot see bytes PHP has read ahead).
 *
 * PHP 8.2 cannot tell a stream's descriptor number, so it is looked up once per stream by the
 * socket's inode (fstat()) in /proc/self/fd: the kernel hands out the lowest free number, so the
 * numbers this driver gave up lately are tried first, lowest first, then the numbers above the
 * highest seen, and only then all numbers from 0 (one readlink() each, ~4 µs).
 *
 * A stream closed while still watched is dropped by the kernel silently; its watchers are
 * reported (culprits()) once its number is taken by another watched stream. After fork() the
 * child gets an epoll instance of its own at its next call, with every watch in it again.
 *
 * Bounds: 1,024 events per wait (the rest are reported by the next one: level-triggered); as many
 * descriptors as the process may open.
 */
final class EpollDriver implements PollDriver
{
    private const EPOLLIN = 0x001;
    private const EPOLLOUT = 0x004;
    private const EPOLLERR = 0x008;
    private const EPOLLHUP = 0x010;
    private const READABLE = self::EPOLLIN | self::EPOLLERR | self::EPOLLHUP;
    private const WRITABLE = self::EPOLLOUT | self::EPOLLERR | self::EPOLLHUP;
    private const CTL_ADD = 1;
    private const CTL_DEL = 2;
    private const CTL_MOD = 3;
    private const CLOEXEC = 0x80000;
    private const EBADF = 9;
    private const EFAULT = 14;
    private const EINVAL = 22;
    private const EEXIST = 17;
    private const ENOENT = 2;
    private const EPERM = 1;
    private const PAGE = 4096;
    private const PROT_READ_WRITE = 0x3;
    private const MAP_PRIVATE_ANONYMOUS = 0x22;
    private const MADV_WIPEONFORK = 18;
    /** Events taken per epoll_wait(). */
    public const BATCH = 1024;
    /**
     * FFI functions are called through call_user_func() by name: written as \call_user_func(),
     * PHP compiles the call into a direct one (INIT_USER_CALL), which the tracing JIT still sees
     * as a "trampoline call" and aborts the trace on; after 16 aborts Loop::select() and poll()
     * ran in the interpreter for good. Called by name, the FFI call happens inside an internal
     * function, where the tracer does not look. What it calls is the C function as an FFI\CData
     * (taken once, see open()), not [$ffi, 'epoll_wait']: an array callable is resolved by name on
     * every call (about 3,900 instructions a call against 2,600).
     */
    private const CALL = 'call_user_func';
    /** The watch id under which the epoll descriptor sits in the fallback poll. */
    private const EPOLL_WATCH = -1;
    /**
     * An event's data (its low 32 bits, the only ones read) is the watch id itself for a
     * descriptor with one read watcher and no write watcher, and COMPLEX | the descriptor for any
     * other (ids from COMPLEX up, should a process ever make that many, are registered the
     * complex way too).
     */
    private const COMPLEX = 0x80000000;

    private static ?\FFI $ffi = null;
    /**
     * The process id, as an int32_t in a page the kernel zeroes in a forked child
     * (MADV_WIPEONFORK), so that a poll tells a fork by reading memory (about 40 ns) instead of
     * asking the kernel for the pid (getmypid() is a getpid() system call, about 150-300 ns
     * here, once per poll and so many times in a spin). Null where madvise() refuses the
     * advice (Linux before 4.14): then every poll calls getmypid().
     */
    private static ?\FFI\CData $pidWord = null;
    private static bool $pidWordTried = false;

    private int $epfd = -1;
    private int $pid = 0;
    private ?\FFI\CData $events = null;
    /** $events as uint32_t[3 * BATCH] (see poll()) */
    private ?\FFI\CData $words = null;
    private ?\FFI\CData $event = null;
    /** libc's epoll_wait and epoll_ctl as FFI\CData function pointers (see CALL) */
    private ?\FFI\CData $wait = null;
    private ?\FFI\CData $control = null;
    /** @var resource|null the epoll descriptor as a PHP stream, for the fallback poll */
    private mixed $epollStream = null;
    private readonly StreamSelectDriver $fallback;
    private int $fallbackWatches = 0;
    /** @var array<int, int> descriptor of each watch id in epoll */
    private array $fdOf = [];
    // A descriptor has one read watcher and at most one write watcher almost always: those are
    // plain ints, so that a poll finds the watcher of a ready descriptor with one lookup and a
    // watched socket costs no array of its own. Further watchers of a descriptor (rare) are kept
    // apart, in the order they came.
    /** @var array<int, int> the (first) read watcher of each descriptor */
    private array $reader = [];
    /** @var array<int, array<int, true>> the other read watchers of a descriptor, if any */
    private array $moreReaders = [];
    /** @var array<int, int> the (first) write watcher of each descriptor */
    private array $writer = [];
    /** @var array<int, array<int, true>> the other write watchers of a descriptor, if any */
    private array $moreWriters = [];
    /** @var array<int, resource> the stream watched at each descriptor */
    private array $streamAt = [];
    /** @var array<int, int> what is registered in epoll for each descriptor: its data << 8 | its event mask */
    private array $registered = [];
    /** @var array<int, int> descriptor of each stream already looked up, by resource id */
    private array $known = [];
    /** @var array<int, int> resource id looked up at each descriptor */
    private array $knownAt = [];
    /** @var \SplMinHeap<int> descriptors this driver stopped watching: likely the next ones handed out */
    private \SplMinHeap $holes;
    /** @var array<int, true> */
    private array $holeSet = [];
    /** One above the highest descriptor found so far. */
    private int $top = 0;
    /** Watch ids the last poll reported ready. */
    private int $lastReady = 0;
    private string $lastError = '';
    /** @var array<int, string> */
    private array $culprits = [];

    public function __construct(private readonly int $capacity)
    {
        self::$ffi ??= self::bind();
        $this->fallback = new StreamSelectDriver();
        $this->holes = new \SplMinHeap();
        $this->open(); // now, while descriptor numbers are low (see open())
    }

    public function __destruct()
    {
        if ($this->epfd >= 0 && $this->pid === getmypid()) {
            self::$ffi?->close($this->epfd); // @phpstan-ignore method.notFound (FFI binds libc at run time)
        }
    }

    /**
     * Null when epoll can be used here, otherwise why not (not Linux, FFI off, no /proc).
     */
    public static function unsupportedReason(): ?string
    {
        if (\PHP_OS_FAMILY !== 'Linux') {
            return 'epoll is Linux only';
        }
        if (!\extension_loaded('ffi')) {
            return 'ext-ffi is not loaded (Debian: php8.2-common ships it; check php -m)';
        }
        $enabled = strtolower((string) \ini_get('ffi.enable'));
        if (!\in_array($enabled, ['1', 'on', 'true', 'yes'], true) && !($enabled === 'preload' && \PHP_SAPI === 'cli')) {
            return "FFI is disabled here (ffi.enable={$enabled}, SAPI " . \PHP_SAPI . ')';
        }
        if (!is_dir('/proc/self/fd')) {
            return 'no /proc/self/fd to find descriptor numbers in';
        }
        try {
            self::$ffi ??= self::bind();
        } catch (\Throwable $e) {
            return 'libc could not be bound through FFI: ' . $e->getMessage();
        }

        return null;
    }

    public function name(): string
    {
        return 'epoll';
    }

    public function capacity(): int
    {
        return $this->capacity;
    }

    public function limitsDescriptorNumbers(): bool
    {
        return false;
    }

    public function watchRead(int $id, mixed $stream): void
    {
        $fd = $this->descriptor($stream);
        if ($fd === null) {
            $this->fallback->watchRead($id, $stream);
            ++$this->fallbackWatches;

            return;
        }
        // Bytes PHP read ahead would be invisible to epoll.
        stream_set_read_buffer($stream, 0);
        $this->claim($fd, $stream);
        $this->fdOf[$id] = $fd;
        if (isset($this->reader[$fd])) {
            $this->moreReaders[$fd][$id] = true;
        } else {
            $this->reader[$fd] = $id;
        }
        $this->update($fd);
    }

    public function watchWrite(int $id, mixed $stream): void
    {
        $fd = $this->descriptor($stream);
        if ($fd === null) {
            $this->fallback->watchWrite($id, $stream);
            ++$this->fallbackWatches;

            return;
        }
        $this->claim($fd, $stream);
        $this->fdOf[$id] = $fd;
        if (isset($this->writer[$fd])) {
            $this->moreWriters[$fd][$id] = true;
        } else {
            $this->writer[$fd] = $id;
        }
        $this->update($fd);
    }

    public function unwatch(int $id): void
    {
        $fd = $this->fdOf[$id] ?? null;
        if ($fd === null) {
            if ($this->fallbackWatches > 0) {
                $before = $this->fallback->pollCost();
                $this->fallback->unwatch($id);
                $this->fallbackWatches -= $before - $this->fallback->pollCost();
            }
            unset($this->culprits[$id]);

            return;
        }
        unset($this->fdOf[$id]);
        if (($this->reader[$fd] ?? null) === $id) {
            self::promote($this->reader, $this->moreReaders, $fd);
        } elseif (isset($this->moreReaders[$fd][$id])) {
            unset($this->moreReaders[$fd][$id]);
            if ($this->moreReaders[$fd] === []) {
                unset($this->moreReaders[$fd]);
            }
        } elseif (($this->writer[$fd] ?? null) === $id) {
            self::promote($this->writer, $this->moreWriters, $fd);
        } elseif (isset($this->moreWriters[$fd][$id])) {
            unset($this->moreWriters[$fd][$id]);
            if ($this->moreWriters[$fd] === []) {
                unset($this->moreWriters[$fd]);
            }
        }
        $this->update($fd);
    }

    /**
     * The first watcher of $fd in $first is gone: the next one of $more (if any) takes its place.
     *
     * @param array<int, int>              $first
     * @param array<int, array<int, true>> $more
     */
    private static function promote(array &$first, array &$more, int $fd): void
    {
        $next = isset($more[$fd]) ? array_key_first($more[$fd]) : null;
        if ($next === null) {
            unset($first[$fd]);

            return;
        }
        $first[$fd] = $next;
        unset($more[$fd][$next]);
        if ($more[$fd] === []) {
            unset($more[$fd]);
        }
    }

    /**
     * The watch ids at $fd, first ones first.
     *
     * @param array<int, int>              $first
     * @param array<int, array<int, true>> $more
     *
     * @return list<int>
     */
    private static function idsAt(array $first, array $more, int $fd): array
    {
        if (!isset($first[$fd])) {
            return [];
        }

        return isset($more[$fd]) ? [$first[$fd], ...array_keys($more[$fd])] : [$first[$fd]];
    }

    public function pollCost(): int
    {
        return $this->lastReady + $this->fallbackWatches;
    }

    public function poll(?float $timeout, array &$read, array &$write): int|false
    {
        $read = $write = [];
        $word = self::$pidWord;
        if ($word === null || $word[0] !== $this->pid) {
            $this->checkFork();
        }
        if ($this->culprits !== []) {
            $this->lastError = 'a stream was closed while it was still watched';

            return false;
        }
        if ($this->fallbackWatches > 0) {
            // Streams epoll cannot take: one stream_select() over them and the epoll descriptor.
            \assert($this->epollStream !== null);
            $this->fallback->watchRead(self::EPOLL_WATCH, $this->epollStream);
            $ready = $this->fallback->poll($timeout, $read, $write);
            $this->fallback->unwatch(self::EPOLL_WATCH);
            if ($ready === false) {
                $this->lastError = $this->fallback->lastError();

                return false;
            }
            if (!\in_array(self::EPOLL_WATCH, $read, true)) {
                return $this->lastReady = $ready;
            }
            $read = array_values(array_filter($read, static fn(int $id): bool => $id !== self::EPOLL_WATCH));
            $ms = 0;
        } elseif ($timeout === null) {
            $ms = -1;
        } else {
            // Rounded up: waking before the timer is due would only cost another turn.
            $ms = $timeout <= 0.0 ? 0 : (int) min(86_400_000.0, ceil($timeout * 1000.0));
        }
        // Through call_user_func() called by name (see CALL): the tracing JIT gives up on a trace
        // that calls an FFI function itself (a "trampoline call") and leaves the loop's turn to
        // the interpreter.
        $call = self::CALL;
        /** @var int $n */
        $n = $call($this->wait, $this->epfd, $this->events, self::BATCH, $ms); // @phpstan-ignore argument.type (an FFI\CData function is callable)
        if ($n < 0) {
            $errno = self::errno();
            $this->lastReady = 0;
            // epoll_wait() fails only with EBADF, EFAULT, EINVAL or EINTR. A signal that ends the
            // wait (EINTR) has its PHP handler run as soon as the call returns, before errno can
            // be read here, and whatever that handler does (a write to the loop's wake-up socket,
            // a failed read) may leave another errno behind (EAGAIN was seen): every errno but
            // the three real failures is such an interruption.
            if ($errno !== self::EBADF && $errno !== self::EFAULT && $errno !== self::EINVAL) {
                return \count($read) + \count($write);
            }
            $this->lastError = "epoll_wait() failed with errno {$errno}";

            return false;
        }
        // The events read as 32-bit words (3 per packed 12-byte event: the mask, then the low and
        // high half of the data): a scalar read each (about 150 instructions), where taking
        // $events[$i] made an FFI object per event (about 240 more). A descriptor watched for
        // reading only (a connection at rest) carries its watcher's id and is registered for
        // EPOLLIN alone, so any event on it means readable (EPOLLERR and EPOLLHUP read as EOF or
        // an error): neither its mask nor any array is read.
        /** @var \FFI\CData $words */
        $words = $this->words;
        for ($at = 1, $end = 3 * $n; $at < $end; $at += 3) {
            /** @var int $data */
            $data = $words[$at];
            if ($data < self::COMPLEX) {
                $read[] = $data;

                continue;
            }
            $fd = $data - self::COMPLEX;
            /** @var int $mask */
            $mask = $words[$at - 1];
            if (($mask & self::READABLE) !== 0) {
                foreach (self::idsAt($this->reader, $this->moreReaders, $fd) as $id) {
                    $read[] = $id;
                }
            }
            if (($mask & self::WRITABLE) !== 0) {
                foreach (self::idsAt($this->writer, $this->moreWriters, $fd) as $id) {
                    $write[] = $id;
                }
            }
        }
        // Each written only when it changes: a typed property write costs ~100 instructions, and
        // a worker spinning before it sleeps polls many times per message.
        if ($this->lastError !== '') {
            $this->lastError = '';
        }
        $ready = \count($read) + \count($write);
        if ($ready !== $this->lastReady) {
            $this->lastReady = $ready;
        }

        return $ready;
    }

    public function lastError(): string
    {
        return $this->lastError;
    }

    public function culprits(): array
    {
        $culprits = $this->culprits + ($this->fallbackWatches > 0 ? $this->fallback->culprits() : []);
        $this->culprits = [];

        return $culprits;
    }

    /**
     * The descriptor number of a socket stream, or null for a stream that is not a socket (or
     * whose number cannot be found): those go to the fallback poll.
     *
     * @param resource $stream
     */
    private function descriptor(mixed $stream): ?int
    {
        if (!\is_resource($stream)) {
            return null; // closed already: the fallback poll reports it as a culprit
        }
        $key = get_resource_id($stream);
        $fd = $this->known[$key] ?? null;
        if ($fd !== null) {
            return $fd;
        }
        if (!str_contains(stream_get_meta_data($stream)['stream_type'], 'socket')) {
            return null;
        }
        $stat = @fstat($stream);
        if ($stat === false) {
            return null;
        }
        $fd = $this->search("socket:[{$stat['ino']}]");
        if ($fd === null) {
            return null;
        }
        $stale = $this->knownAt[$fd] ?? null;
        if ($stale !== null) {
            unset($this->known[$stale]); // a closed stream had this number before
        }
        $this->known[$key] = $fd;
        $this->knownAt[$fd] = $key;

        return $fd;
    }

    private function search(string $target): ?int
    {
        while (!$this->holes->isEmpty()) {
            $number = $this->holes->top();
            $link = @readlink("/proc/self/fd/{$number}");
            if ($link === false) {
                break; // still free, so the socket got a lower number: search from 0
            }
            $this->holes->extract();
            unset($this->holeSet[$number]);
            if ($link === $target) {
                return $number;
            }
        }
        if ($this->holes->isEmpty()) {
            for ($number = $this->top, $end = $this->top + 64; $number < $end; ++$number) {
                $link = @readlink("/proc/self/fd/{$number}");
                if ($link === $target) {
                    $this->top = $number + 1;

                    return $number;
                }
                if ($link === false) {
                    break;
                }
            }
        }
        $end = max($this->top + 64, $this->capacity);
        for ($number = 0; $number < $end; ++$number) {
            if (@readlink("/proc/self/fd/{$number}") === $target) {
                $this->top = max($this->top, $number + 1);

                return $number;
            }
        }

        return null;
    }

    /**
     * $stream is to be watched at $fd: watchers left there by a stream closed while watched (the
     * number was free for the kernel to hand out again) are dropped and reported.
     *
     * @param resource $stream
     */
    private function claim(int $fd, mixed $stream): void
    {
        $owner = $this->streamAt[$fd] ?? null;
        if ($owner === $stream) {
            return;
        }
        $this->streamAt[$fd] = $stream;
        if ($owner === null) {
            return;
        }
        foreach ([...self::idsAt($this->reader, $this->moreReaders, $fd), ...self::idsAt($this->writer, $this->moreWriters, $fd)] as $id) {
            $this->culprits[$id] = 'a closed stream';
            unset($this->fdOf[$id]);
        }
        unset($this->reader[$fd], $this->moreReaders[$fd], $this->writer[$fd], $this->moreWriters[$fd]);
        $this->registered[$fd] = 0; // the kernel dropped the closed stream's registration
    }

    private function update(int $fd): void
    {
        $reader = $this->reader[$fd] ?? null;
        $writer = isset($this->writer[$fd]);
        $mask = ($reader !== null ? self::EPOLLIN : 0) | ($writer ? self::EPOLLOUT : 0);
        $data = $reader !== null && !$writer && $reader < self::COMPLEX && !isset($this->moreReaders[$fd]) ? $reader : self::COMPLEX | $fd;
        $old = $this->registered[$fd] ?? 0;
        $new = $mask === 0 ? 0 : $data << 8 | $mask;
        if ($new === $old) {
            return;
        }
        $this->checkFork();
        if ($mask === 0) {
            unset($this->registered[$fd], $this->streamAt[$fd]);
            $this->ctl(self::CTL_DEL, $fd, 0); // fails harmlessly when the stream is closed already
            if (!isset($this->holeSet[$fd])) {
                $this->holeSet[$fd] = true;
                $this->holes->insert($fd);
            }

            return;
        }
        $this->registered[$fd] = $new;
        $op = $old === 0 ? self::CTL_ADD : self::CTL_MOD;
        $errno = $this->ctl($op, $fd, $mask, $data);
        if ($errno === self::EEXIST || $errno === self::ENOENT) {
            $errno = $this->ctl($op === self::CTL_ADD ? self::CTL_MOD : self::CTL_ADD, $fd, $mask, $data);
        }
        if ($errno === 0) {
            return;
        }
        // Not pollable by epoll (EPERM) or closed (EBADF): the watchers go to the fallback
        // poll, which reports a closed stream as a culprit.
        $stream = $this->streamAt[$fd] ?? throw new \LogicException("No stream is recorded at descriptor {$fd}, which has watchers.");
        unset($this->registered[$fd], $this->streamAt[$fd]);
        foreach (self::idsAt($this->reader, $this->moreReaders, $fd) as $id) {
            unset($this->fdOf[$id]);
            $this->fallback->watchRead($id, $stream);
            ++$this->fallbackWatches;
        }
        foreach (self::idsAt($this->writer, $this->moreWriters, $fd) as $id) {
            unset($this->fdOf[$id]);
            $this->fallback->watchWrite($id, $stream);
            ++$this->fallbackWatches;
        }
        unset($this->reader[$fd], $this->moreReaders[$fd], $this->writer[$fd], $this->moreWriters[$fd]);
        if ($errno !== self::EPERM && $errno !== self::EBADF) {
            $this->lastError = "epoll_ctl() failed with errno {$errno}";
        }
    }

    /**
     * @return int 0 or the errno
     */
    private function ctl(int $op, int $fd, int $mask, int $data = 0): int
    {
        if ($this->epfd < 0) {
            $this->open();
        }
        /** @var \FFI\CData $event */
        $event = $this->event;
        $event->events = $mask; // @phpstan-ignore property.notFound (FFI binds libc at run time)
        $event->data = $data; // @phpstan-ignore property.notFound (FFI binds libc at run time)

        $call = self::CALL;
        /** @var int $result */
        $result = $call($this->control, $this->epfd, $op, $fd, \FFI::addr($event)); // @phpstan-ignore argument.type (an FFI\CData function is callable)

        return $result === 0 ? 0 : self::errno();
    }

    private function open(): void
    {
        $ffi = self::$ffi ?? throw new \LogicException('libc is not bound.');
        /** @var int $epfd */
        $epfd = $ffi->epoll_create1(self::CLOEXEC); // @phpstan-ignore method.notFound (FFI binds libc at run time)
        if ($epfd < 0) {
            throw new \RuntimeException(\sprintf('epoll_create1() failed with errno %d: the process may be out of descriptors (ulimit -n).', self::errno()));
        }
        $this->epfd = $epfd;
        $this->pid = getmypid() ?: 0;
        self::pidWord($ffi);
        // Its copy for the fallback poll is made now, while descriptor numbers are low: made later,
        // past 1,023, stream_select() could not take it and every poll with a pipe would fail.
        $this->epollStream = $this->epollAsStream();
        $this->events ??= $ffi->new('epoll_event_t[' . self::BATCH . ']');
        $this->words ??= $ffi->cast('uint32_t[' . (3 * self::BATCH) . ']', $this->events);
        $this->event ??= $ffi->new('epoll_event_t');
        /** @var \FFI\CData $wait */
        $wait = $ffi->epoll_wait; // @phpstan-ignore property.notFound (FFI binds libc at run time)
        /** @var \FFI\CData $control */
        $control = $ffi->epoll_ctl; // @phpstan-ignore property.notFound (FFI binds libc at run time)
        $this->wait ??= $wait;
        $this->control ??= $control;
    }

    /**
     * Opens an epoll instance of this process's own when this one was made before a fork(), and
     * writes this process's id into the fork-wiped word (zeroed in a child, see $pidWord), which
     * every driver of the process compares its own pid with at each poll.
     */
    private function checkFork(): void
    {
        $pid = getmypid() ?: 0;
        $word = self::$pidWord;
        if ($word !== null) {
            $word[0] = $pid;
        }
        if ($this->pid !== $pid) {
            $this->reopen();
        }
    }

    /**
     * The page holding the process id, wiped in a forked child (see $pidWord); null where the
     * kernel does not wipe pages on fork.
     */
    private static function pidWord(\FFI $ffi): ?\FFI\CData
    {
        if (self::$pidWordTried) {
            return self::$pidWord;
        }
        self::$pidWordTried = true;
        /** @var \FFI\CData|null $page */
        $page = $ffi->mmap(null, self::PAGE, self::PROT_READ_WRITE, self::MAP_PRIVATE_ANONYMOUS, -1, 0); // @phpstan-ignore method.notFound (FFI binds libc at run time)
        $address = $page === null ? null : $ffi->cast('intptr_t', $page);
        if ($page === null || $address === null || $address->cdata === -1) { // @phpstan-ignore property.notFound (MAP_FAILED; FFI binds libc at run time)
            return null;
        }
        /** @var int $advised */
        $advised = $ffi->madvise($page, self::PAGE, self::MADV_WIPEONFORK); // @phpstan-ignore method.notFound (FFI binds libc at run time)
        if ($advised !== 0) {
            $ffi->munmap($page, self::PAGE); // @phpstan-ignore method.notFound (FFI binds libc at run time)

            return null;
        }
        // Zero until the first poll writes the pid (see checkFork()).
        return self::$pidWord = $ffi->cast('int32_t *', $page);
    }

    /**
     * After fork(): the epoll instance is shared with the parent, so the child makes its own and
     * registers every watch again.
     */
    private function reopen(): void
    {
        if ($this->epfd < 0) {
            $this->open();

            return;
        }
        self::$ffi?->close($this->epfd); // @phpstan-ignore method.notFound (FFI binds libc at run time)
        if ($this->epollStream !== null) {
            fclose($this->epollStream);
            $this->epollStream = null;
        }
        $this->epfd = -1;
        $this->open();
        foreach ($this->registered as $fd => $registered) {
            if ($registered !== 0) {
                $this->ctl(self::CTL_ADD, $fd, $registered & 0xFF, $registered >> 8);
            }
        }
    }

    /**
     * @return resource
     */
    private function epollAsStream(): mixed
    {
        if ($this->epfd < 0) {
            $this->open();
        }
        // php://fd duplicates the descriptor: the copy is readable while epoll has events.
        $stream = @fopen("php://fd/{$this->epfd}", 'r');
        if ($stream === false) {
            throw new \RuntimeException('Could not open the epoll descriptor as a stream for the fallback poll: the process may be out of descriptors (ulimit -n).');
        }

        return $stream;
    }

    private static function errno(): int
    {
        $ffi = self::$ffi ?? throw new \LogicException('libc is not bound.');
        /** @var \FFI\CData $location */
        $location = $ffi->__errno_location(); // @phpstan-ignore method.notFound (FFI binds libc at run time)

        /** @var int */
        return $location[0];
    }

    private static function bind(): \FFI
    {
        $ffi = \FFI::cdef(<<<'C'
            typedef struct __attribute__((packed)) { uint32_t events; uint64_t data; } epoll_event_t;
            int epoll_create1(int flags);
            int epoll_ctl(int epfd, int op, int fd, epoll_event_t *event);
            int epoll_wait(int epfd, epoll_event_t *events, int maxevents, int timeout);
            int close(int fd);
            int *__errno_location(void);
            void *mmap(void *addr, size_t length, int prot, int flags, int fd, long offset);
            int munmap(void *addr, size_t length);
            int madvise(void *addr, size_t length, int advice);
            C, 'libc.so.6');
        // PHP's FFI ignores a trailing packed attribute; the kernel's struct is 12 bytes.
        $event = $ffi->new('epoll_event_t');
        if ($event === null || \FFI::sizeof($event) !== 12) {
            throw new \RuntimeException('struct epoll_event does not come out as 12 bytes through FFI.');
        }

        return $ffi;
    }
}
