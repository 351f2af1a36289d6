"""Ray for the commands that spread work over processes or machines (``avalon evalset --ray``,
``avalon train impala``): a local Ray of the run's own, or an existing cluster joined by address.

Ray is an optional dependency (the ``ray`` extra, part of ``dev``): it is imported only here and
only when asked for, so the rest of the package loads without it.
"""

from __future__ import annotations

from typing import Any

from avalon.errors import AvalonError

#: The address that starts a Ray of the run's own on this machine.
LOCAL_RAY = "local"


def import_ray(needed_by: str) -> Any:
    """The ``ray`` module, or an :class:`AvalonError` saying that ``needed_by`` needs it and how to
    install it."""
    try:
        import ray
    except ImportError:
        raise AvalonError(f"{needed_by} needs Ray: pip install -e '.[ray]' (make setup installs it)") from None
    return ray


def start_ray(ray: Any, address: str, num_cpus: int) -> bool:
    """Starts a local Ray of ``num_cpus`` CPUs (``address`` is :data:`LOCAL_RAY`) or joins the
    cluster at ``address``, unless this process already has a Ray. True when it started or joined
    one: the caller then shuts it down when done."""
    if ray.is_initialized():
        return False
    if address == LOCAL_RAY:
        ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
    else:
        ray.init(address=address, log_to_driver=False)
    return True
