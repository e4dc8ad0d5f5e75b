<?php

declare(strict_types=1);

namespace Nexus\Cli;

/**
 * A command with options describes them in full for `nexus help <command>` and `<command> --help`.
 */
interface HasUsage
{
    public function usage(): string;
}
