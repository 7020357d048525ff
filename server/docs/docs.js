// Starts Swagger UI over this application's public document (data-url of
// #swagger-ui, a path on this origin). Nothing reaches another host: no
// validator badge, no configuration or document taken from the query string.
(function () {
  'use strict';
  var root = document.getElementById('swagger-ui');
  var documentURL = new URL(root.getAttribute('data-url'), location.href).href;
  var jsonapi = 'application/vnd.api+json';

  // "Try it out" should speak JSON:API, the format the example parameters
  // (include, fields, meta) need. Swagger UI picks the first media type of a
  // request body, but the document lists them alphabetically (application/json,
  // the plain format, first): jsonapiFirst reorders them as the document loads.
  // For responses it presets application/json and then sends "Accept: */*",
  // which the server answers in the plain format: noPresetMediaType lets it
  // take the first media type of the response instead, and send that.
  function jsonapiFirst(node) {
    if (Array.isArray(node)) {
      node.forEach(jsonapiFirst);
      return;
    }
    if (!node || typeof node !== 'object') {
      return;
    }
    Object.keys(node).forEach(function (key) {
      var value = node[key];
      if (key === 'content' && value && typeof value === 'object' && !Array.isArray(value) &&
          Object.prototype.hasOwnProperty.call(value, jsonapi)) {
        var ordered = {};
        ordered[jsonapi] = value[jsonapi];
        Object.keys(value).forEach(function (type) {
          if (type !== jsonapi) {
            ordered[type] = value[type];
          }
        });
        node[key] = ordered;
      }
      jsonapiFirst(node[key]);
    });
  }

  function noPresetMediaType() {
    return {
      statePlugins: {
        spec: {
          wrapSelectors: {
            currentProducesFor: function (original, system) {
              return function (state, pathMethod) {
                if (!system.specSelectors.isOAS3()) {
                  return original(state, pathMethod);
                }
                return state.getIn(['meta', 'paths'].concat(pathMethod || [], 'produces_value'), null) || '';
              };
            }
          }
        }
      }
    };
  }

  window.ui = SwaggerUIBundle({
    url: documentURL,
    domNode: root,
    presets: [SwaggerUIBundle.presets.apis],
    plugins: [noPresetMediaType],
    layout: 'BaseLayout',
    validatorUrl: null,
    queryConfigEnabled: false,
    deepLinking: true,
    docExpansion: 'list',
    filter: true,
    displayRequestDuration: true,
    tryItOutEnabled: false,
    persistAuthorization: false,
    withCredentials: false,
    responseInterceptor: function (res) {
      if (res && res.url === documentURL && typeof res.text === 'string') {
        try {
          var doc = JSON.parse(res.text);
          jsonapiFirst(doc);
          res.text = JSON.stringify(doc);
          res.body = doc;
        } catch (e) {
          // not JSON: leave the document as it came
        }
      }
      return res;
    }
  });
})();
