<?php

declare(strict_types=1);

namespace Nexus\Worker\Codec\Internal;

/**
 * A message of the mesh itself that must not go straight into a mailbox: the receiving worker
 * handles it (one instanceof on the delivery path tells them apart).
 *
 * @internal
 */
interface MeshControl {}
