<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Worker;

/**
 * An enum message: igbinary writes enums in a way the guard does not take, so it crosses with
 * serialize().
 */
enum Suit: string
{
    case Hearts = 'h';
    case Spades = 's';
}
