<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration;

use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * Every ```php block in README.md and docs/*.md must be PHP that parses, and every Nexus name it
 * uses must exist as written: imported classes, classes it instantiates or calls statically
 * (with their static methods, constants and enum cases), named constructor arguments, and the
 * methods it calls on objects. Blocks that are whole programs are run by their own tests
 * (ReadmeQuickStartTest, the DocsSample tests); this one keeps the excerpts from going stale
 * when a class or a signature changes.
 */
final class DocsCodeTest extends TestCase
{
    private const ROOT = __DIR__ . '/../..';

    /** @var array<string, class-string|null>|null Nexus classes by short name (a null entry: ambiguous) */
    private static ?array $shortNames = null;
    /** @var array<string, true>|null lower-case names of every public method of a Nexus class */
    private static ?array $methods = null;

    /**
     * @return iterable<string, array{string, int, string}>
     */
    public static function blocks(): iterable
    {
        $files = [self::ROOT . '/README.md', ...(glob(self::ROOT . '/docs/*.md') ?: [])];
        foreach ($files as $file) {
            $text = (string) file_get_contents($file);
            preg_match_all('/^```php[ \t]*\n(.*?)^```[ \t]*$/ms', $text, $matches, \PREG_OFFSET_CAPTURE);
            foreach ($matches[1] as [$code, $offset]) {
                $line = substr_count(substr($text, 0, $offset), "\n") + 1;
                $name = basename($file) . ':' . $line;

                yield $name => [$name, $line, $code];
            }
        }
    }

    #[DataProvider('blocks')]
    public function testTheBlockParsesAndItsNamesExist(string $name, int $line, string $code): void
    {
        $source = str_starts_with(ltrim($code), '<?php') ? $code : "<?php\n" . $code;
        try {
            $tokens = token_get_all($source, \TOKEN_PARSE);
        } catch (\ParseError $e) {
            self::fail("{$name}: the block does not parse (line {$e->getLine()} of the block): {$e->getMessage()}");
        }
        $tokens = self::significant($tokens);
        $imports = $this->imports($tokens);
        foreach ($imports as $fqcn) {
            if (str_starts_with($fqcn, 'Nexus\\')) {
                self::assertTrue(self::known($fqcn), "{$name}: `use {$fqcn}` names no class, interface or enum.");
            }
        }
        $problems = [];
        $count = \count($tokens);
        for ($i = 0; $i < $count; ++$i) {
            [$kind, $text] = $tokens[$i];
            $next = $tokens[$i + 1] ?? [0, ''];
            $after = $tokens[$i + 2] ?? [0, ''];
            if ($kind === \T_NEW && self::isName($next[0])) {
                $class = $this->resolve($next[1], $imports);
                if ($class === false) {
                    $problems[] = "new {$next[1]}: no such class";
                } elseif ($class !== null) {
                    $problems = [...$problems, ...$this->namedArguments($class, '__construct', $tokens, $i + 2)];
                }
            } elseif (self::isName($kind) && $next[0] === \T_DOUBLE_COLON && $after[0] !== 0) {
                $class = $this->resolve($text, $imports);
                $member = $after[1];
                $isCall = ($tokens[$i + 3][1] ?? '') === '(';
                if ($class === false) {
                    $problems[] = "{$text}::{$member}: no such class";
                } elseif ($class === null || $member === 'class') {
                    continue;
                } elseif ($isCall && !method_exists($class, $member)) {
                    $problems[] = "{$text}::{$member}(): {$class} has no such method";
                } elseif ($isCall) {
                    $problems = [...$problems, ...$this->namedArguments($class, $member, $tokens, $i + 3)];
                } elseif ($after[0] === \T_STRING && !\defined("{$class}::{$member}")) {
                    $problems[] = "{$text}::{$member}: {$class} has no such constant or case";
                }
            } elseif (($kind === \T_OBJECT_OPERATOR || $kind === \T_NULLSAFE_OBJECT_OPERATOR) && $next[0] === \T_STRING && $after[1] === '('
                && !isset(self::methods()[strtolower($next[1])])) {
                $problems[] = "->{$next[1]}(): no Nexus class has a public method of that name";
            }
        }
        self::assertSame([], $problems, "{$name} (the block starting at line {$line}) uses names that do not exist:\n- " . implode("\n- ", $problems));
    }

    /**
     * The tokens without whitespace and comments, each as [kind, text]; a one-character token has
     * kind 0.
     *
     * @param list<array{0: int, 1: string, 2: int}|string> $tokens
     *
     * @return list<array{int, string}>
     */
    private static function significant(array $tokens): array
    {
        $significant = [];
        foreach ($tokens as $token) {
            if (\is_string($token)) {
                $significant[] = [0, $token];
            } elseif (!\in_array($token[0], [\T_WHITESPACE, \T_COMMENT, \T_DOC_COMMENT], true)) {
                $significant[] = [$token[0], $token[1]];
            }
        }

        return $significant;
    }

    /**
     * @param list<array{int, string}> $tokens
     *
     * @return array<string, string> fully qualified names by alias
     */
    private function imports(array $tokens): array
    {
        $imports = [];
        foreach ($tokens as $i => [$kind]) {
            if ($kind !== \T_USE || ($tokens[$i + 1][0] ?? 0) !== \T_NAME_QUALIFIED) {
                continue;
            }
            $fqcn = ltrim($tokens[$i + 1][1], '\\');
            $alias = substr($fqcn, (int) strrpos($fqcn, '\\') + 1);
            if (($tokens[$i + 2][0] ?? 0) === \T_AS && isset($tokens[$i + 3])) {
                $alias = $tokens[$i + 3][1];
            }
            $imports[$alias] = $fqcn;
        }

        return $imports;
    }

    private static function isName(int $kind): bool
    {
        return $kind === \T_STRING || $kind === \T_NAME_QUALIFIED || $kind === \T_NAME_FULLY_QUALIFIED;
    }

    /**
     * The class a name in a block stands for: null when it is not a Nexus name we can check
     * (self, static, a PHP class, a class the block defines), false when it is a Nexus-looking
     * name that does not exist.
     *
     * @param array<string, string> $imports
     *
     * @return class-string|false|null
     */
    private function resolve(string $name, array $imports): string|false|null
    {
        if (\in_array(strtolower($name), ['self', 'static', 'parent'], true)) {
            return null;
        }
        $name = ltrim($name, '\\');
        $first = explode('\\', $name, 2)[0];
        if (isset($imports[$first])) {
            $fqcn = $imports[$first] . substr($name, \strlen($first));
        } elseif (str_starts_with($name, 'Nexus\\')) {
            $fqcn = $name;
        } elseif (\array_key_exists($name, self::shortNames())) {
            $fqcn = self::shortNames()[$name];
            if ($fqcn === null) {
                return null;
            }
        } else {
            return null;
        }
        if (!str_starts_with($fqcn, 'Nexus\\')) {
            return null;
        }

        return self::known($fqcn) ? $fqcn : false;
    }

    /**
     * @param class-string             $class
     * @param list<array{int, string}> $tokens
     *
     * @return list<string>
     */
    private function namedArguments(string $class, string $method, array $tokens, int $open): array
    {
        if (($tokens[$open][1] ?? '') !== '(' || !method_exists($class, $method)) {
            return [];
        }
        $parameters = [];
        foreach ((new \ReflectionMethod($class, $method))->getParameters() as $parameter) {
            $parameters[$parameter->getName()] = true;
        }
        $problems = [];
        $depth = 0;
        $count = \count($tokens);
        for ($i = $open; $i < $count; ++$i) {
            [$kind, $text] = $tokens[$i];
            if ($kind === 0 && \in_array($text, ['(', '[', '{'], true)) {
                ++$depth;
            } elseif ($kind === 0 && \in_array($text, [')', ']', '}'], true)) {
                if (--$depth === 0) {
                    break;
                }
            } elseif ($depth === 1 && $kind === \T_STRING && ($tokens[$i + 1][1] ?? '') === ':'
                && \in_array($tokens[$i - 1][1], ['(', ','], true) && !isset($parameters[$text])) {
                $problems[] = "{$class}::{$method}() has no parameter named \${$text}";
            }
        }

        return $problems;
    }

    /**
     * @phpstan-assert-if-true class-string $fqcn
     */
    private static function known(string $fqcn): bool
    {
        return class_exists($fqcn) || interface_exists($fqcn) || enum_exists($fqcn) || trait_exists($fqcn);
    }

    /**
     * @return array<string, class-string|null>
     */
    private static function shortNames(): array
    {
        if (self::$shortNames === null) {
            self::index();
        }

        return self::$shortNames ?? [];
    }

    /**
     * @return array<string, true>
     */
    private static function methods(): array
    {
        if (self::$methods === null) {
            self::index();
        }

        return self::$methods ?? [];
    }

    private static function index(): void
    {
        $shortNames = [];
        $methods = [];
        $source = realpath(self::ROOT . '/src');
        self::assertIsString($source);
        $files = new \RecursiveIteratorIterator(new \RecursiveDirectoryIterator($source, \FilesystemIterator::SKIP_DOTS));
        foreach ($files as $file) {
            \assert($file instanceof \SplFileInfo);
            if ($file->getExtension() !== 'php') {
                continue;
            }
            $class = 'Nexus\\' . str_replace('/', '\\', substr($file->getPathname(), \strlen($source) + 1, -4));
            if (!self::known($class)) {
                continue;
            }
            /** @var class-string $class */
            $short = substr($class, (int) strrpos($class, '\\') + 1);
            $shortNames[$short] = \array_key_exists($short, $shortNames) ? null : $class;
            foreach ((new \ReflectionClass($class))->getMethods(\ReflectionMethod::IS_PUBLIC) as $method) {
                $methods[strtolower($method->getName())] = true;
            }
        }
        self::$shortNames = $shortNames;
        self::$methods = $methods;
    }
}
