<?php

declare(strict_types=1);

namespace Nexus\Actor\Signal;

/**
 * The actor and all its children have stopped; no message will follow.
 */
final class PostStop implements Signal {}
