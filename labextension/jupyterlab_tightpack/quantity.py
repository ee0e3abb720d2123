"""Resource amounts as the Python front ends of Kubernetes write them.

KubeSpawner (``jupyterhub.traitlets.ByteSpecification``) and dask-gateway
(``dask_gateway_server.traitlets.MemoryLimit``) read memory as an int or float
number of bytes, or a number followed by one of K, M, G, T, all binary
(1024-based): ``"12G"`` is 12 GiB. Both give Kubernetes the byte count.
"""

from __future__ import annotations

_BINARY = {"K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}


def parse_byte_spec(value: object, what: str) -> int:
    """Bytes from a KubeSpawner / dask-gateway memory specification.

    ``Ki``/``Mi``/``Gi``/``Ti`` are accepted as the same binary units. Raises ValueError
    naming ``what`` and the value when it is not a specification.
    """
    if isinstance(value, bool):
        raise ValueError(f"{what}: {value!r} is not a memory specification")
    if isinstance(value, (int, float)):
        return int(value)
    if isinstance(value, str):
        text = value.strip()
        if text.endswith("i") and len(text) > 1 and text[-2] in _BINARY:
            text = text[:-1]
        try:
            return int(float(text))
        except ValueError:
            pass
        if text and text[-1] in _BINARY:
            try:
                return int(float(text[:-1]) * _BINARY[text[-1]])
            except ValueError:
                pass
    raise ValueError(
        f"{what}: {value!r} is not a memory specification "
        "(a number of bytes, or a number with suffix K, M, G or T)"
    )


def cpu_quantity(value: object, what: str) -> str:
    """A Kubernetes cpu quantity from a number of cores (or a quantity string, kept as is)."""
    if isinstance(value, bool):
        raise ValueError(f"{what}: {value!r} is not a number of cores")
    if isinstance(value, str):
        text = value.strip()
        if not text:
            raise ValueError(f"{what}: empty cpu value")
        try:
            value = float(text)
        except ValueError:
            return text  # already a quantity such as "500m"
    if isinstance(value, (int, float)):
        if value < 0:
            raise ValueError(f"{what}: {value!r} is negative")
        millis = round(value * 1000)
        return str(millis // 1000) if millis % 1000 == 0 else f"{millis}m"
    raise ValueError(f"{what}: {value!r} is not a number of cores")


def resource_quantity(value: object) -> object:
    """Numbers (KubeSpawner's extra_resource_* may hold ints) as quantity strings."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return value
