<?php

declare(strict_types=1);

namespace Nexus\Runtime\Exception;

final class FutureAlreadySettledException extends \LogicException {}
