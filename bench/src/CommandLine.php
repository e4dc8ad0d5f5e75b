<?php

declare(strict_types=1);

namespace Nexus\Bench;

/**
 * The command line of a benchmark runner: --help, --FLAG and --OPTION=VALUE. --help prints the
 * usage and exits 0; anything unknown prints the usage to stderr and exits 2.
 */
final class CommandLine
{
    /**
     * @param list<string>          $arguments without the script name
     * @param array<string, bool>   $flags     known flags with their defaults
     * @param array<string, string> $options   known options with their defaults
     *
     * @return array{array<string, bool>, array<string, string>} the flags, and the options given
     */
    public static function parse(array $arguments, array $flags, array $options, string $usage): array
    {
        $given = [];
        foreach ($arguments as $argument) {
            if ($argument === '--help' || $argument === '-h') {
                echo $usage;
                exit(0);
            }
            if (preg_match('/^--([a-z-]+)$/', $argument, $match) === 1 && \array_key_exists($match[1], $flags)) {
                $flags[$match[1]] = true;

                continue;
            }
            if (preg_match('/^--([a-z-]+)=(.*)$/s', $argument, $match) !== 1 || !\array_key_exists($match[1], $options)) {
                fwrite(\STDERR, "Unknown option '{$argument}'.\n{$usage}");
                exit(2);
            }
            $given[$match[1]] = $match[2];
        }

        return [$flags, $given];
    }
}
