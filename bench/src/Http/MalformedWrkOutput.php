<?php

declare(strict_types=1);

namespace Nexus\Bench\Http;

/**
 * wrk's output lacks a figure the benchmark needs (wrk failed, or its format changed).
 */
final class MalformedWrkOutput extends \RuntimeException {}
