<?php

declare(strict_types=1);

namespace Nexus\Bench;

/**
 * The command line of bench/run.php.
 */
final readonly class Options
{
    public const FULL_RUNS = 9;
    public const FULL_WARMUPS = 2;
    public const MIN_RUNS = 5;
    public const SMOKE_SCALE = 100;

    private function __construct(
        public ?string $filter,
        public ?string $json,
        public bool $smoke,
        public int $runs,
        public int $warmups,
        public int $scale,
        public bool $help,
    ) {}

    /**
     * @param list<string> $arguments without the script name
     */
    public static function parse(array $arguments): self
    {
        $filter = $json = null;
        $smoke = $help = false;
        $runs = $warmups = null;
        foreach ($arguments as $argument) {
            $equals = strpos($argument, '=');
            $option = $equals === false ? $argument : substr($argument, 0, $equals);
            $value = $equals === false ? null : substr($argument, $equals + 1);
            switch ($option) {
                case '--filter':
                    $filter = self::pattern(self::value($option, $value));
                    break;
                case '--json':
                    $json = self::value($option, $value);
                    break;
                case '--smoke':
                    self::flag($option, $value);
                    $smoke = true;
                    break;
                case '--runs':
                    $runs = self::integer($option, $value, self::MIN_RUNS);
                    break;
                case '--warmups':
                    $warmups = self::integer($option, $value, 1);
                    break;
                case '--help':
                case '-h':
                    $help = true;
                    break;
                default:
                    throw new UsageError("Unknown option '{$argument}'. Try --help.");
            }
        }

        return new self(
            $filter,
            $json,
            $smoke,
            $runs ?? ($smoke ? self::MIN_RUNS : self::FULL_RUNS),
            $warmups ?? ($smoke ? 1 : self::FULL_WARMUPS),
            $smoke ? self::SMOKE_SCALE : 1,
            $help,
        );
    }

    public static function usage(): string
    {
        return <<<'TXT'
            Usage: php bench/run.php [--filter=REGEX] [--json=FILE] [--smoke] [--runs=N] [--warmups=N]

              --filter=REGEX  run only the cases whose name matches (PCRE, no delimiters: ^actor\.spawn)
              --json=FILE     also write one JSON object per case and line to FILE
              --smoke         tiny counts, 1 warm-up and 5 runs: checks that every case works, fast
              --runs=N        measured runs per case (at least 5; default 9, smoke 5)
              --warmups=N     unmeasured runs before them (default 2, smoke 1)

            Progress goes to STDERR, the table to STDOUT. Exit code 1 when a case failed its check.
            TXT;
    }

    public function selects(string $case): bool
    {
        return $this->filter === null || preg_match($this->filter, $case) === 1;
    }

    private static function value(string $option, ?string $value): string
    {
        if ($value === null || $value === '') {
            throw new UsageError("{$option} needs a value: {$option}=...");
        }

        return $value;
    }

    private static function flag(string $option, ?string $value): void
    {
        if ($value !== null) {
            throw new UsageError("{$option} takes no value.");
        }
    }

    private static function integer(string $option, ?string $value, int $minimum): int
    {
        $value = self::value($option, $value);
        if (preg_match('/^\d+$/', $value) !== 1 || (int) $value < $minimum) {
            throw new UsageError("{$option} must be a whole number of at least {$minimum}, got '{$value}'.");
        }

        return (int) $value;
    }

    private static function pattern(string $regex): string
    {
        // Braces as delimiters: PCRE matches them in pairs, so a regex may contain {n,m}.
        $pattern = '{' . $regex . '}';
        set_error_handler(static fn(): bool => true);
        try {
            $valid = preg_match($pattern, '') !== false;
        } finally {
            restore_error_handler();
        }
        if (!$valid) {
            throw new UsageError("--filter: '{$regex}' is not a valid regular expression.");
        }

        return $pattern;
    }
}
