from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("audit.urls")),
    path("api/", include("tables.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
]

# JSON under /api/, the admin's pages elsewhere (casino.api_errors)
handler404 = "casino.api_errors.not_found"
handler500 = "casino.api_errors.server_failed"
