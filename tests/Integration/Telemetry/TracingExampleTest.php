<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Telemetry;

use Nexus\Tests\Integration\Cli\PhpProcess;
use PHPUnit\Framework\TestCase;

/**
 * examples/tracing.php runs and prints the trace shown in docs/observability.md ("A trace you
 * can run").
 */
final class TracingExampleTest extends TestCase
{
    private const ROOT = __DIR__ . '/../../..';

    public function testTheExamplePrintsTheTraceOfTheDocs(): void
    {
        $doc = (string) file_get_contents(self::ROOT . '/docs/observability.md');
        $section = substr($doc, (int) strpos($doc, '### A trace you can run'));
        if (preg_match('/```text\n(.*?)```/s', $section, $match) !== 1) {
            self::fail('The section shows the output in a text block.');
        }

        $run = PhpProcess::run(['examples/tracing.php'], self::ROOT);

        self::assertSame(0, $run->exitCode, $run->describe());
        self::assertSame('', $run->stderr, $run->describe());
        self::assertSame($match[1], $run->stdout);
    }
}
