<?php

declare(strict_types=1);

namespace Nexus\Cli;

/**
 * One subcommand of bin/nexus. Register it in Application::createDefault() to make it available.
 */
interface Command
{
    public const SUCCESS = 0;
    public const FAILURE = 1;
    /** The command line was wrong: unknown command, option or argument. */
    public const USAGE = 2;

    /**
     * What the user types after `nexus`: lowercase, no spaces.
     */
    public function name(): string;

    /**
     * One line for the command list of `nexus help`.
     */
    public function description(): string;

    /**
     * Runs the command and returns its exit code. Throws UsageException for a wrong command line.
     *
     * @param list<string> $args   the arguments after the command name
     * @param resource     $stdout
     * @param resource     $stderr
     */
    public function run(array $args, $stdout, $stderr): int;
}
