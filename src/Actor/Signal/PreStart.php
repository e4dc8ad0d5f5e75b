<?php

declare(strict_types=1);

namespace Nexus\Actor\Signal;

/**
 * The actor has started and is about to take its first message.
 */
final class PreStart implements Signal {}
