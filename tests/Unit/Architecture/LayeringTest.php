<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Architecture;

use PHPUnit\Framework\TestCase;

/**
 * The seams hold: no layer reaches into another layer's Internal namespace, and the links between
 * processes know their host only through Transport\LinkHost.
 */
final class LayeringTest extends TestCase
{
    private const SRC = __DIR__ . '/../../../src';

    public function testNoLayerImportsAnotherLayersInternals(): void
    {
        $offenders = [];
        foreach ($this->files() as $file => $code) {
            $layer = explode('/', substr($file, \strlen(self::SRC) + 1))[0];
            if (preg_match_all('/^use Nexus\\\\(\w+)\\\\(?:[\w\\\\]*\\\\)?Internal\\\\/m', $code, $matches) > 0) {
                foreach ($matches[1] as $used) {
                    if ($used !== $layer) {
                        $offenders[] = "{$file} uses Nexus\\{$used}\\...\\Internal";
                    }
                }
            }
        }

        self::assertSame([], $offenders);
    }

    public function testTheLinksDependOnTheirHostsInterfaceOnly(): void
    {
        foreach (['PeerLink', 'InboundLink'] as $class) {
            $code = (string) file_get_contents(self::SRC . "/Worker/Transport/{$class}.php");
            self::assertStringNotContainsString('Worker\\Internal', $code, "{$class} must see the mesh only as a LinkHost");
            self::assertStringContainsString('LinkHost $host', $code);
        }
    }

    /**
     * @return array<string, string>
     */
    private function files(): array
    {
        $files = [];
        $iterator = new \RecursiveIteratorIterator(new \RecursiveDirectoryIterator(self::SRC, \FilesystemIterator::SKIP_DOTS));
        foreach ($iterator as $file) {
            if ($file instanceof \SplFileInfo && $file->getExtension() === 'php') {
                $files[str_replace('\\', '/', $file->getPathname())] = (string) file_get_contents($file->getPathname());
            }
        }

        return $files;
    }
}
