<?php

declare(strict_types=1);

namespace Nexus\Cli;

use Nexus\Demo\BankStory;

/**
 * `nexus demo`: tells the bank story (Nexus\Demo\BankStory) and exits.
 */
final class DemoCommand implements Command
{
    public function name(): string
    {
        return 'demo';
    }

    public function description(): string
    {
        return 'Run a short actor demo: supervision (resume, restart) and ask (reply, timeout); exits by itself';
    }

    public function run(array $args, $stdout, $stderr): int
    {
        if ($args !== []) {
            throw new UsageException(sprintf("takes no arguments, got '%s'.", implode(' ', $args)));
        }

        return (new BankStory())->tell($stdout, $stderr) ? Command::SUCCESS : Command::FAILURE;
    }
}
