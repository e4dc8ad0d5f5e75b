<?php

declare(strict_types=1);

namespace Nexus\Cli;

use Composer\InstalledVersions;

/**
 * The `nexus` command line: picks the command named by the first argument and runs it. Adding a
 * command means writing a Command and registering it in createDefault().
 */
final class Application
{
    public const BINARY = 'nexus';
    private const PACKAGE = 'nexus/nexus';
    private const HELP_FLAGS = ['help', '--help', '-h'];
    private const VERSION_FLAGS = ['--version', '-V'];

    /** @var array<string, Command> by name, in registration order */
    private array $commands = [];

    public function __construct(Command ...$commands)
    {
        foreach ($commands as $command) {
            $this->add($command);
        }
    }

    /**
     * The application with every built-in command.
     */
    public static function createDefault(): self
    {
        return new self(new DemoCommand(), new ServeCommand(), new TopCommand(), new ClusterCommand());
    }

    public function add(Command $command): void
    {
        $name = $command->name();
        if (preg_match('/^[a-z][a-z0-9-]*$/', $name) !== 1) {
            throw new \InvalidArgumentException(sprintf(
                "%s is named '%s': a command name must start with a lowercase letter and contain only lowercase letters, digits and dashes.",
                $command::class,
                $name,
            ));
        }
        if ($name === 'help' || isset($this->commands[$name])) {
            throw new \LogicException(sprintf(
                "%s is named '%s', which is already taken%s: give it another name.",
                $command::class,
                $name,
                isset($this->commands[$name]) ? ' by ' . $this->commands[$name]::class : ' by the built-in help',
            ));
        }
        $this->commands[$name] = $command;
    }

    /**
     * Runs the command line (without the program name) and returns the process exit code.
     *
     * @param list<string> $args
     * @param resource     $stdout
     * @param resource     $stderr
     */
    public function run(array $args, $stdout, $stderr): int
    {
        $name = $args[0] ?? null;
        $rest = \array_slice($args, 1);
        if ($name === null) {
            fwrite($stderr, self::BINARY . ": no command given.\n\n" . $this->usage());

            return Command::USAGE;
        }
        if (\in_array($name, self::HELP_FLAGS, true)) {
            return $this->help($rest, $stdout, $stderr);
        }
        if (\in_array($name, self::VERSION_FLAGS, true)) {
            fwrite($stdout, sprintf("Nexus %s (PHP %s)\n", self::version(), \PHP_VERSION));

            return Command::SUCCESS;
        }
        $command = $this->commands[$name] ?? null;
        if ($command === null) {
            fwrite($stderr, $this->unknownCommand($name) . "\n\n" . $this->usage());

            return Command::USAGE;
        }
        if (\in_array($rest[0] ?? null, self::HELP_FLAGS, true)) {
            fwrite($stdout, $this->commandHelp($command));

            return Command::SUCCESS;
        }

        try {
            return $command->run($rest, $stdout, $stderr);
        } catch (UsageException $e) {
            fwrite($stderr, sprintf(
                "%s %s: %s\nRun '%s help %s' for its usage.\n",
                self::BINARY,
                $name,
                $e->getMessage(),
                self::BINARY,
                $name,
            ));

            return Command::USAGE;
        } catch (\Throwable $e) {
            fwrite($stderr, sprintf(
                "%s %s: failed: %s: %s (at %s:%d)\n",
                self::BINARY,
                $name,
                $e::class,
                $e->getMessage(),
                $e->getFile(),
                $e->getLine(),
            ));

            return Command::FAILURE;
        }
    }

    /**
     * The installed version of the package, or "dev" in a checkout that Composer has no version for.
     */
    public static function version(): string
    {
        if (!class_exists(InstalledVersions::class) || !InstalledVersions::isInstalled(self::PACKAGE)) {
            return 'dev';
        }
        $version = InstalledVersions::getPrettyVersion(self::PACKAGE);
        if ($version === null || str_contains($version, 'no-version-set')) {
            return 'dev';
        }

        return $version;
    }

    public function usage(): string
    {
        $rows = [];
        foreach ($this->commands as $name => $command) {
            $rows[$name] = $command->description();
        }
        $rows['help'] = 'Show this help, or the help of one command (help <command>)';
        $width = max(array_map('strlen', array_keys($rows)));
        $list = '';
        foreach ($rows as $name => $description) {
            $list .= sprintf("  %-{$width}s  %s\n", $name, $description);
        }
        $binary = self::BINARY;

        return <<<TEXT
            Usage:
              {$binary} <command> [arguments]

            Commands:
            {$list}
            Options:
              -h, --help     Show this help
              -V, --version  Show the version of Nexus and PHP

            TEXT;
    }

    /**
     * @param list<string> $args
     * @param resource     $stdout
     * @param resource     $stderr
     */
    private function help(array $args, $stdout, $stderr): int
    {
        $topic = $args[0] ?? null;
        if ($topic === null || \in_array($topic, self::HELP_FLAGS, true)) {
            fwrite($stdout, "Nexus: an actor runtime with its own event loop, for PHP 8.2+\n\n" . $this->usage());

            return Command::SUCCESS;
        }
        $command = $this->commands[$topic] ?? null;
        if ($command === null) {
            fwrite($stderr, $this->unknownCommand($topic) . "\n\n" . $this->usage());

            return Command::USAGE;
        }
        fwrite($stdout, $this->commandHelp($command));

        return Command::SUCCESS;
    }

    private function commandHelp(Command $command): string
    {
        if ($command instanceof HasUsage) {
            return $command->description() . "\n\n" . $command->usage();
        }

        return sprintf("%s\n\nUsage:\n  %s %s\n", $command->description(), self::BINARY, $command->name());
    }

    private function unknownCommand(string $name): string
    {
        $message = sprintf("%s: unknown command '%s'.", self::BINARY, $name);
        $closest = null;
        $closestDistance = 3;
        foreach (array_keys($this->commands) as $candidate) {
            $distance = levenshtein($name, $candidate);
            if ($distance < $closestDistance) {
                $closest = $candidate;
                $closestDistance = $distance;
            }
        }

        return $closest === null ? $message : $message . " Did you mean '{$closest}'?";
    }
}
