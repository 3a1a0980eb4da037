from django.contrib import admin
from django.contrib.auth.decorators import login_required
from django.urls import include, path
from drf_spectacular.views import SpectacularJSONAPIView, SpectacularSwaggerView

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("audit.urls")),
    path("api/", include("tables.urls")),
    path("api/schema/", SpectacularJSONAPIView.as_view(), name="api-schema"),
    # a page for people: who is not logged in goes to the admin's login first
    path("api/docs/", login_required(SpectacularSwaggerView.as_view(url_name="api-schema"), login_url="/admin/login/"),
         name="api-docs"),
]

# JSON under /api/, the admin's pages elsewhere (casino.api_errors)
handler404 = "casino.api_errors.not_found"
handler500 = "casino.api_errors.server_failed"
