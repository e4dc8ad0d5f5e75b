<?php

declare(strict_types=1);

namespace Nexus\Persistence\Store;

/**
 * How a payload's bytes are written: JSON text (readable by other tools), or PHP's serialize()
 * of registered classes, base64-encoded so that every store can keep it as text.
 */
enum PayloadFormat: string
{
    case Json = 'json';
    case Php = 'php';
}
