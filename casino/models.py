"""casino's one model is the regulator's package request, defined in
:mod:`regulator.models` under this app's label (it says why). Imported here so that
Django counts casino an app with models: after a flush, or a migrate, its content type
and permissions (``casino.add_packagerequest``) are made again like any app's."""

from regulator.models import PackageRequest

__all__ = ("PackageRequest",)
